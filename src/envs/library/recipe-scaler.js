// Recipe scaler: pick the right converter per ingredient (same-dimension unit conversion versus
// density-based volume-to-mass), scale to the party size, subtract the pantry and submit a nested
// shopping list. Some requests lack the party size (MISSING) or are not about cooking (DECLINE).
class Environment {
  static meta = {
    name: "recipe-scaler",
    skill: "Tool Selection",
    description:
      "Turn a recipe into a shopping list for a given number of people: scale it, convert each ingredient to its shopping unit with the right tool (unit converter or density converter), subtract what the pantry holds and submit a nested list; or answer MISSING when the party size is not given, or DECLINE an unrelated request without tools.",
    maxTurns: 18,
    tools: [
      {
        type: "function",
        function: {
          name: "get_recipe",
          description: "A recipe: servings and ingredients with quantities and the unit each is bought in.",
          parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
      {
        type: "function",
        function: {
          name: "convert_units",
          description: "Convert a quantity between units of the same kind (volume: ml, l, cup, tbsp, tsp; mass: g, kg, oz, lb).",
          parameters: {
            type: "object",
            properties: {
              quantity: { type: "object", properties: { value: { type: "number" }, unit: { type: "string" } }, required: ["value", "unit"] },
              to_unit: { type: "string" },
            },
            required: ["quantity", "to_unit"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "convert_by_density",
          description: "Convert an ingredient between volume and mass using its density.",
          parameters: {
            type: "object",
            properties: {
              ingredient: { type: "string" },
              quantity: { type: "object", properties: { value: { type: "number" }, unit: { type: "string" } }, required: ["value", "unit"] },
              to_unit: { type: "string" },
            },
            required: ["ingredient", "quantity", "to_unit"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "check_pantry",
          description: "How much of each named ingredient is at home (in its shopping unit).",
          parameters: { type: "object", properties: { items: { type: "array", minItems: 1, items: { type: "string" } } }, required: ["items"] },
        },
      },
      {
        type: "function",
        function: {
          name: "submit_shopping_list",
          description: "Submit the final shopping list. Ends the task.",
          parameters: {
            type: "object",
            properties: {
              list: {
                type: "object",
                properties: {
                  recipe: { type: "string" },
                  servings: { type: "integer" },
                  items: {
                    type: "array",
                    items: {
                      type: "object",
                      properties: {
                        ingredient: { type: "string" },
                        amount: { type: "object", properties: { value: { type: "number" }, unit: { type: "string", enum: ["g", "ml", "pcs"] } }, required: ["value", "unit"] },
                      },
                      required: ["ingredient", "amount"],
                    },
                  },
                },
                required: ["recipe", "servings", "items"],
              },
            },
            required: ["list"],
          },
        },
      },
    ],
  };

  static UNITS = { ml: ["volume", 1], l: ["volume", 1000], cup: ["volume", 240], tbsp: ["volume", 15], tsp: ["volume", 5], g: ["mass", 1], kg: ["mass", 1000], oz: ["mass", 28.35], lb: ["mass", 453.6] };
  static DENSITY = { flour: 0.53, sugar: 0.85, butter: 0.96, "baking powder": 0.9, rice: 0.85, "curry paste": 1.1, oats: 0.41, honey: 1.42, raisins: 0.64, cocoa: 0.5, "peanut butter": 1.08 };
  static RECIPES = {
    pancakes: [4, [["flour", 1.5, "cup", "g"], ["milk", 1.25, "cup", "ml"], ["eggs", 2, "pcs", "pcs"], ["sugar", 2, "tbsp", "g"], ["butter", 3, "tbsp", "g"], ["baking powder", 2, "tsp", "g"]]],
    "chicken curry": [4, [["rice", 2, "cup", "g"], ["coconut milk", 400, "ml", "ml"], ["chicken", 1.2, "lb", "g"], ["onions", 2, "pcs", "pcs"], ["oil", 2, "tbsp", "ml"], ["curry paste", 3, "tbsp", "g"]]],
    granola: [6, [["oats", 3, "cup", "g"], ["honey", 0.5, "cup", "g"], ["oil", 0.25, "cup", "ml"], ["almonds", 5, "oz", "g"], ["raisins", 0.5, "cup", "g"]]],
    "chocolate cookies": [12, [["flour", 2.25, "cup", "g"], ["butter", 1, "cup", "g"], ["sugar", 0.75, "cup", "g"], ["eggs", 2, "pcs", "pcs"], ["cocoa", 0.33, "cup", "g"], ["milk", 3, "tbsp", "ml"]]],
    "peanut noodles": [3, [["noodles", 0.5, "lb", "g"], ["peanut butter", 4, "tbsp", "g"], ["soy sauce", 3, "tbsp", "ml"], ["limes", 1, "pcs", "pcs"], ["water", 0.5, "cup", "ml"]]],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const names = Object.keys(Environment.RECIPES);
    this.recipe = pick(names);
    const [servings, rows] = Environment.RECIPES[this.recipe];
    this.servings = servings;
    do this.people = rint(2, 16);
    while (this.people === servings);
    const factor = this.people / servings;
    this.ingredients = rows.map(([ingredient, value, unit, buy]) => ({ ingredient, value, unit, buy }));
    this.pantry = {};
    this.want = [];
    for (const ing of this.ingredients) {
      const need = this.toBuyUnit(ing.ingredient, ing.value * factor, ing.unit, ing.buy);
      // Pantry stock is clearly short or clearly enough, so rounding never decides membership.
      const mode = pick(["none", "some", "enough"]);
      const have = mode === "none" ? 0 : mode === "some" ? Math.floor(need * rint(20, 60) / 100) : Math.ceil(need * rint(120, 200) / 100) + 2;
      this.pantry[ing.ingredient] = have;
      const missing = Math.round(need - have);
      if (missing > 0) this.want.push({ ingredient: ing.ingredient, value: missing, unit: ing.buy });
    }
    if (this.want.length === 0) {
      const first = this.ingredients[0];
      this.pantry[first.ingredient] = 0;
      this.want.push({ ingredient: first.ingredient, value: Math.round(this.toBuyUnit(first.ingredient, first.value * factor, first.unit, first.buy)), unit: first.buy });
    }
    const roll = Math.random();
    this.kind = roll < 0.7 ? "execute" : roll < 0.85 ? "missing" : "irrelevant";
    const off = pick([
      "Can you book me a table for two at an Italian restaurant on Saturday?",
      "Please set a reminder to call my dentist tomorrow morning.",
      "What is the exchange rate from euros to dollars today?",
    ]);
    const request =
      this.kind === "irrelevant" ? off : this.kind === "missing" ? `I'm making ${this.recipe} for some friends this weekend. What do I need to buy?` : `I'm making ${this.recipe} for ${this.people} people. What do I need to buy?`;
    this.converted = [];
    this.pantryChecked = false;
    this.recipeRead = false;
    this.toolCalls = 0;
    this.submitted = null;
    this.done = false;
    return {
      observation:
        "You are a kitchen assistant with tools (get_recipe, convert_units, convert_by_density, check_pantry, submit_shopping_list).\n" +
        `User: "${request}"\n` +
        "A shopping list holds, for each ingredient, the amount needed for the requested number of people minus what the pantry already has, in the ingredient's shopping unit (g, ml or pcs), rounded to a whole number; leave out ingredients the pantry covers. " +
        "If the request lacks a detail you need, call no tools and answer MISSING followed by that detail in \\boxed{}. If it is not a cooking request, call no tools and answer DECLINE in \\boxed{}.",
      info: { kind: this.kind },
    };
  }

  // Amount in the shopping unit, or null when the conversion is impossible.
  toBuyUnit(ingredient, value, unit, buy) {
    if (buy === "pcs") return unit === "pcs" ? value : null;
    const from = Environment.UNITS[unit];
    const to = Environment.UNITS[buy];
    if (!from || !to) return null;
    const base = value * from[1];
    if (from[0] === to[0]) return base / to[1];
    const density = Environment.DENSITY[ingredient];
    if (density === undefined) return null;
    return from[0] === "volume" ? (base * density) / to[1] : base / density / to[1];
  }

  static schemaError(schema, value, path) {
    if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(", ")}`;
    if (schema.type === "object") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} must be an object`;
      for (const key of schema.required || []) if (!(key in value)) return `${path}.${key} is required`;
      for (const key of Object.keys(value)) {
        if (!schema.properties[key]) return `${path}.${key} is not a known field`;
        const err = Environment.schemaError(schema.properties[key], value[key], `${path}.${key}`);
        if (err) return err;
      }
    } else if (schema.type === "array") {
      if (!Array.isArray(value) || value.length < (schema.minItems || 0)) return `${path} must be an array${schema.minItems ? " with items" : ""}`;
      for (let i = 0; i < value.length; i++) {
        const err = Environment.schemaError(schema.items, value[i], `${path}[${i}]`);
        if (err) return err;
      }
    } else if (schema.type === "string" && typeof value !== "string") return `${path} must be a string`;
    else if (schema.type === "number" && (typeof value !== "number" || !Number.isFinite(value))) return `${path} must be a number`;
    else if (schema.type === "integer" && !Number.isInteger(value)) return `${path} must be an integer`;
    return null;
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    this.toolCalls++;
    const round2 = (x) => Math.round(x * 100) / 100;
    if (name === "get_recipe") {
      const key = args.name.trim().toLowerCase();
      if (!Environment.RECIPES[key]) return { error: "NOT_FOUND", message: `Known recipes: ${Object.keys(Environment.RECIPES).join(", ")}.` };
      if (key === this.recipe) this.recipeRead = true;
      const [servings, rows] = Environment.RECIPES[key];
      return { recipe: key, servings, ingredients: rows.map(([ingredient, value, unit, buy]) => ({ ingredient, quantity: { value, unit }, buy_in: buy })) };
    }
    if (name === "check_pantry") {
      this.pantryChecked = this.pantryChecked || this.ingredients.every((ing) => args.items.some((x) => x.trim().toLowerCase() === ing.ingredient));
      return { pantry: args.items.map((x) => ({ ingredient: x, amount: this.pantry[x.trim().toLowerCase()] || 0 })) };
    }
    if (name === "submit_shopping_list") {
      this.submitted = args.list;
      return { status: "submitted" };
    }
    const from = Environment.UNITS[args.quantity.unit.trim().toLowerCase()];
    const to = Environment.UNITS[args.to_unit.trim().toLowerCase()];
    if (!from || !to) return { error: "UNKNOWN_UNIT", message: `Units: ${Object.keys(Environment.UNITS).join(", ")}.` };
    if (name === "convert_units") {
      if (from[0] !== to[0]) return { error: "INCOMPATIBLE_UNITS", message: `Cannot convert ${from[0]} to ${to[0]} without a density; use convert_by_density.` };
      this.converted.push(`${args.quantity.unit.trim().toLowerCase()}>${args.to_unit.trim().toLowerCase()}`);
      return { value: round2((args.quantity.value * from[1]) / to[1]), unit: args.to_unit.trim().toLowerCase() };
    }
    if (from[0] === to[0]) return { error: "SAME_DIMENSION", message: "Both units measure the same kind of quantity; use convert_units." };
    const ingredient = args.ingredient.trim().toLowerCase();
    if (Environment.DENSITY[ingredient] === undefined) return { error: "UNKNOWN_DENSITY", message: `No density on file for ${JSON.stringify(args.ingredient)}.` };
    this.converted.push(ingredient);
    return { value: round2(this.toBuyUnit(ingredient, args.quantity.value, args.quantity.unit.trim().toLowerCase(), args.to_unit.trim().toLowerCase())), unit: args.to_unit.trim().toLowerCase() };
  }

  listOk() {
    const l = this.submitted;
    if (!l || l.recipe.trim().toLowerCase() !== this.recipe || l.servings !== this.people || l.items.length !== this.want.length) return false;
    return this.want.every((w) =>
      l.items.some((it) => it.ingredient.trim().toLowerCase() === w.ingredient && it.amount.unit === w.unit && Math.abs(it.amount.value - w.value) <= Math.max(1, 0.02 * w.value)),
    );
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.done) {
      out.observation = "The conversation is over.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "The conversation is over." }));
      return out;
    }
    if (calls.length) {
      out.toolResults = calls.map((c) => ({ id: c.id, content: this.submitted ? "Already submitted." : JSON.stringify(this.call(c.name, c.arguments)) }));
      out.observation = "Tool results returned.";
    }
    const answer = typeof action.answer === "string" ? action.answer.trim().toUpperCase() : "";
    if (this.submitted || answer) {
      this.done = true;
      let ok = false;
      if (this.kind === "execute") ok = this.listOk();
      else if (this.kind === "missing") ok = this.toolCalls === 0 && /^MISSING\b.*(PEOPLE|SERVINGS|PERSONS|GUESTS|HOW MANY|NUMBER|PARTY)/.test(answer);
      else ok = this.toolCalls === 0 && answer.startsWith("DECLINE");
      out.reward = ok ? 1 : 0;
      out.terminated = true;
      out.observation = ok ? "The user is happy." : "That does not help the user.";
      out.info = { success: ok, kind: this.kind };
    } else if (!calls.length) {
      out.observation = "Use the tools and submit the list, or answer MISSING or DECLINE in \\boxed{}.";
    }
    return out;
  }

  hint() {
    if (this.kind === "irrelevant") return "This is not a cooking request: call no tools and answer DECLINE.";
    if (this.kind === "missing") return "The user never says for how many people: call no tools and answer MISSING: number of people.";
    const how = this.ingredients
      .map((i) => `${i.ingredient}: ${i.unit}->${i.buy} ${i.unit === i.buy ? "(no conversion)" : Environment.UNITS[i.unit][0] === Environment.UNITS[i.buy][0] ? "convert_units" : "convert_by_density"}`)
      .join("; ");
    return `Scale by ${this.people}/${this.servings}. ${how}. Expected list: ${this.want.map((w) => `${w.ingredient} ${w.value} ${w.unit}`).join(", ")}.`;
  }

  solve() {
    if (this.kind === "irrelevant") return { text: "I can only help with recipes and shopping lists. \\boxed{DECLINE}" };
    if (this.kind === "missing") return { text: "How many people are you cooking for? \\boxed{MISSING: number of people}" };
    if (!this.recipeRead) return { toolCalls: [{ name: "get_recipe", arguments: { name: this.recipe } }] };
    if (!this.pantryChecked) return { toolCalls: [{ name: "check_pantry", arguments: { items: this.ingredients.map((i) => i.ingredient) } }] };
    const factor = this.people / this.servings;
    for (const ing of this.ingredients) {
      if (ing.unit === ing.buy) continue;
      const quantity = { value: Math.round(ing.value * factor * 1000) / 1000, unit: ing.unit };
      if (Environment.UNITS[ing.unit][0] === Environment.UNITS[ing.buy][0]) {
        if (!this.converted.includes(`${ing.unit}>${ing.buy}`)) return { toolCalls: [{ name: "convert_units", arguments: { quantity, to_unit: ing.buy } }] };
      } else if (!this.converted.includes(ing.ingredient)) {
        return { toolCalls: [{ name: "convert_by_density", arguments: { ingredient: ing.ingredient, quantity, to_unit: ing.buy } }] };
      }
    }
    return {
      toolCalls: [
        {
          name: "submit_shopping_list",
          arguments: { list: { recipe: this.recipe, servings: this.people, items: this.want.map((w) => ({ ingredient: w.ingredient, amount: { value: w.value, unit: w.unit } })) } },
        },
      ],
    };
  }
}

// Inventory query: answer a question about a product database by composing nested filter objects,
// sorting, paging and drilling into item details (per-warehouse stock, supplier).
class Environment {
  static meta = {
    name: "inventory-query",
    skill: "Data Retrieval",
    description:
      "Answer one question about a 45-item product database (best-rated item in a price band, units held in one warehouse, cheapest qualifying item's supplier) using a query tool with nested filter and sort objects, pagination and item details.",
    maxTurns: 14,
    tools: [
      {
        type: "function",
        function: {
          name: "query_items",
          description: "Filter, sort and page the catalog (5 items per page). Every filter field is optional.",
          parameters: {
            type: "object",
            properties: {
              filter: {
                type: "object",
                properties: {
                  category: { type: "string", enum: ["kitchen", "office", "garden", "lighting", "tools"] },
                  price: {
                    type: "object",
                    properties: { min: { type: "number" }, max: { type: "number" } },
                  },
                  min_rating: { type: "number" },
                  supplier_country: { type: "string" },
                  in_stock: { type: "boolean", description: "true: only items with stock in some warehouse" },
                },
              },
              sort: {
                type: "object",
                properties: {
                  field: { type: "string", enum: ["price", "rating", "name"] },
                  order: { type: "string", enum: ["asc", "desc"] },
                },
                required: ["field", "order"],
              },
              page: { type: "integer", minimum: 1 },
            },
            required: ["filter"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "get_item",
          description: "Full record of one item: supplier and stock per warehouse.",
          parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
        },
      },
      {
        type: "function",
        function: {
          name: "list_categories",
          description: "Category names with item counts.",
          parameters: { type: "object", properties: {} },
        },
      },
    ],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const nouns = {
      kitchen: ["Kettle", "Skillet", "Knife Set", "Cutting Board", "Mixing Bowl", "Colander", "Whisk", "Teapot", "Grater"],
      office: ["Stapler", "Desk Lamp", "Notebook", "Monitor Arm", "Pen Set", "Paper Tray", "Chair Mat", "Label Maker", "Whiteboard"],
      garden: ["Trowel", "Hose", "Pruner", "Rake", "Planter", "Watering Can", "Seed Tray", "Kneeler", "Sprinkler"],
      lighting: ["Floor Lamp", "LED Strip", "Bulb Pack", "Lantern", "Pendant", "Spotlight", "Night Light", "Wall Sconce", "Reading Light"],
      tools: ["Hammer", "Drill", "Level", "Wrench Set", "Saw", "Tape Measure", "Clamp", "Sander", "Screwdriver Set"],
    };
    const suppliers = [
      { name: "Brandt Werke", country: "Germany" },
      { name: "Hoffmann GmbH", country: "Germany" },
      { name: "Kiso Works", country: "Japan" },
      { name: "Tanaka Trading", country: "Japan" },
      { name: "Sierra Supply", country: "Mexico" },
      { name: "Grupo Alba", country: "Mexico" },
    ];
    const adjectives = ["Classic", "Pro", "Compact", "Deluxe", "Eco", "Nordic", "Urban", "Heritage"];
    this.items = [];
    const usedPrices = new Set();
    for (const category of Object.keys(nouns)) {
      nouns[category].forEach((noun, i) => {
        let cents;
        do cents = rint(499, 19999);
        while (usedPrices.has(cents));
        usedPrices.add(cents);
        const empty = Math.random() < 0.2;
        this.items.push({
          sku: `${category.slice(0, 3).toUpperCase()}-${rint(1, 9)}${i}${rint(0, 9)}`,
          name: `${pick(adjectives)} ${noun}`,
          category,
          price: cents / 100,
          rating: rint(10, 50) / 10,
          supplier: { ...pick(suppliers) },
          stock: ["north", "south", "east"].map((warehouse) => ({ warehouse, qty: empty ? 0 : Math.random() < 0.3 ? 0 : rint(1, 60) })),
        });
      });
    }
    this.warehouses = ["north", "south", "east"];
    this.kind = pick(["best_rated", "units", "supplier"]);
    this.category = pick(Object.keys(nouns));
    this.seen = [];
    this.pagesRead = new Set();
    this.done = false;
    this.plan();
    return {
      observation:
        "You are a purchasing analyst with read-only access to the product database (query_items, get_item, list_categories). " +
        `Question: ${this.question} Give the answer alone as your final answer in \\boxed{}. You get one answer.`,
      info: { kind: this.kind },
    };
  }

  // Fixes the question, the filter that answers it and the expected answer.
  plan() {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const inCat = this.items.filter((it) => it.category === this.category);
    const total = (it) => it.stock.reduce((s, w) => s + w.qty, 0);
    if (this.kind === "best_rated") {
      const prices = inCat.filter((it) => total(it) > 0).map((it) => it.price).sort((a, b) => a - b);
      this.min = Math.floor(prices[Math.floor(prices.length * 0.2)]);
      this.max = Math.ceil(prices[Math.floor(prices.length * 0.8)]);
      const m = inCat.filter((it) => total(it) > 0 && it.price >= this.min && it.price <= this.max).sort((a, b) => b.rating - a.rating || a.price - b.price);
      // Break ties so the answer is unique.
      for (const other of m.slice(1)) if (other.rating >= m[0].rating) other.rating = Math.round((m[0].rating - 0.1) * 10) / 10;
      this.targetItems = [m[0]];
      this.answer = m[0].sku;
      this.filter = { category: this.category, price: { min: this.min, max: this.max }, in_stock: true };
      this.sort = { field: "rating", order: "desc" };
      this.question = `Among ${this.category} items that are in stock and priced from $${this.min} to $${this.max} (inclusive), which has the highest rating? Answer with its SKU.`;
    } else if (this.kind === "units") {
      const countries = ["Germany", "Japan", "Mexico"];
      const counts = countries.map((c) => inCat.filter((it) => it.supplier.country === c).length);
      this.country = countries[counts.indexOf(Math.max(...counts))];
      this.warehouse = this.warehouses[rint(0, 2)];
      const m = inCat.filter((it) => it.supplier.country === this.country);
      // The answer must not be guessable as a single digit.
      const slot = (it) => it.stock.find((w) => w.warehouse === this.warehouse);
      if (m.reduce((s, it) => s + slot(it).qty, 0) < 10) slot(m[0]).qty += rint(10, 40);
      this.targetItems = m;
      this.answer = String(m.reduce((s, it) => s + slot(it).qty, 0));
      this.filter = { category: this.category, supplier_country: this.country };
      this.sort = { field: "name", order: "asc" };
      this.question = `How many units of ${this.category} items supplied from ${this.country} are held in the ${this.warehouse} warehouse in total? Answer with a whole number.`;
    } else {
      this.minRating = rint(30, 40) / 10;
      let m = inCat.filter((it) => it.rating >= this.minRating).sort((a, b) => a.price - b.price);
      if (m.length === 0) {
        inCat[0].rating = 4.5;
        m = [inCat[0]];
      }
      this.targetItems = [m[0]];
      this.answer = m[0].supplier.name;
      this.filter = { category: this.category, min_rating: this.minRating };
      this.sort = { field: "price", order: "asc" };
      this.question = `Which supplier makes the cheapest ${this.category} item rated ${this.minRating.toFixed(1)} or higher (in stock or not)? Answer with the supplier's name.`;
    }
  }

  static schemaError(schema, value, path) {
    if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(", ")}`;
    const t = schema.type;
    if (t === "object") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} must be an object`;
      for (const key of schema.required || []) if (!(key in value)) return `${path}.${key} is required`;
      for (const key of Object.keys(value)) {
        const sub = schema.properties?.[key];
        if (!sub) return `${path}.${key} is not a filterable field`;
        const err = Environment.schemaError(sub, value[key], `${path}.${key}`);
        if (err) return err;
      }
    } else if (t === "number" && (typeof value !== "number" || !Number.isFinite(value))) return `${path} must be a number`;
    else if (t === "integer" && (!Number.isInteger(value) || value < (schema.minimum ?? -Infinity))) return `${path} must be an integer >= ${schema.minimum}`;
    else if (t === "string" && typeof value !== "string") return `${path} must be a string`;
    else if (t === "boolean" && typeof value !== "boolean") return `${path} must be true or false`;
    return null;
  }

  query(args) {
    const f = args.filter;
    const total = (it) => it.stock.reduce((s, w) => s + w.qty, 0);
    let rows = this.items.filter(
      (it) =>
        (f.category === undefined || it.category === f.category) &&
        (f.price === undefined || ((f.price.min === undefined || it.price >= f.price.min) && (f.price.max === undefined || it.price <= f.price.max))) &&
        (f.min_rating === undefined || it.rating >= f.min_rating) &&
        (f.supplier_country === undefined || it.supplier.country.toLowerCase() === f.supplier_country.trim().toLowerCase()) &&
        (f.in_stock === undefined || (total(it) > 0) === f.in_stock),
    );
    const sort = args.sort || { field: "name", order: "asc" };
    const sign = sort.order === "desc" ? -1 : 1;
    rows = rows.slice().sort((a, b) => sign * (sort.field === "name" ? (a.name < b.name ? -1 : a.name > b.name ? 1 : a.sku < b.sku ? -1 : 1) : a[sort.field] - b[sort.field]));
    const pages = Math.max(1, Math.ceil(rows.length / 5));
    const page = args.page || 1;
    if (page > pages) return { error: "PAGE_OUT_OF_RANGE", message: `There are ${pages} page(s).` };
    if (JSON.stringify(f) === JSON.stringify(this.filter)) this.pagesRead.add(page);
    return {
      total: rows.length,
      page,
      pages,
      items: rows.slice((page - 1) * 5, page * 5).map((it) => ({ sku: it.sku, name: it.name, price: it.price, rating: it.rating, stock_total: total(it) })),
    };
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "list_categories") {
      return { categories: ["kitchen", "office", "garden", "lighting", "tools"].map((c) => ({ category: c, items: this.items.filter((it) => it.category === c).length })) };
    }
    if (name === "query_items") return this.query(args);
    const it = this.items.find((x) => x.sku === args.sku.trim().toUpperCase());
    if (!it) return { error: "NOT_FOUND", message: "No item with that SKU." };
    if (!this.seen.includes(it.sku)) this.seen.push(it.sku);
    return JSON.parse(JSON.stringify(it));
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.done) {
      out.observation = "The question has been answered already.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "Episode over." }));
      return out;
    }
    if (calls.length) {
      out.toolResults = calls.map((c) => ({ id: c.id, content: JSON.stringify(this.call(c.name, c.arguments)) }));
      out.observation = "Query results returned.";
    }
    const answer = typeof action.answer === "string" ? action.answer.trim() : "";
    if (answer) {
      this.done = true;
      const norm = (s) => s.toLowerCase().replace(/[\s$,.]+/g, " ").trim();
      const ok = norm(answer) === norm(this.answer);
      out.reward = ok ? 1 : 0;
      out.terminated = true;
      out.observation = ok ? "Correct." : "That is not the right answer.";
      out.info = { success: ok };
    } else if (!calls.length) {
      out.observation = "Query the database with the tools, then give the answer in \\boxed{}.";
    }
    return out;
  }

  hint() {
    const parts = [`Use query_items with filter ${JSON.stringify(this.filter)} and sort ${JSON.stringify(this.sort)}.`];
    if (this.kind === "units") parts.push(`Then call get_item on each of the ${this.targetItems.length} matching items (${this.targetItems.map((it) => it.sku).join(", ")}) and add their ${this.warehouse} quantities.`);
    else if (this.kind === "supplier") parts.push(`The first result is ${this.targetItems[0].sku}; get_item shows its supplier.`);
    else parts.push(`The top result is the answer (rating ${this.targetItems[0].rating}).`);
    return parts.join(" ");
  }

  solve() {
    const pages = this.kind === "units" ? Math.ceil(this.targetItems.length / 5) : 1;
    for (let page = 1; page <= pages; page++) {
      if (!this.pagesRead.has(page)) return { toolCalls: [{ name: "query_items", arguments: { filter: this.filter, sort: this.sort, page } }] };
    }
    if (this.kind !== "best_rated") {
      const next = this.targetItems.find((it) => !this.seen.includes(it.sku));
      if (next) return { toolCalls: [{ name: "get_item", arguments: { sku: next.sku } }] };
    }
    return { text: `\\boxed{${this.answer}}` };
  }
}

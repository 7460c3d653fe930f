/**
 * @module envs/testing/python-library
 * TEST FIXTURES: library games rewritten in Python (the reference's program format), each over
 * python-prelude.ts (the sandbox's seeded `Math.random` in Python) so that the same seed and
 * actions give the same episode as the JavaScript originals.
 */
import { PYTHON_PRELUDE, pythonMeta } from "./python-prelude.js";

/** vault-cracker (src/envs/library/vault-cracker.js) in Python. */
export const VAULT_CRACKER_PY = String.raw`"""Generated game for Logical Deduction"""
${PYTHON_PRELUDE}

class VaultCrackerEnv:
    """Find a secret 4-digit code from per-digit feedback."""
    meta = ${pythonMeta({ name: "vault-cracker", skill: "Logical Deduction", description: "Find a secret 4-digit code (digits distinct). After each guess the vault says which digits are in the right place and which are in the code but misplaced.", maxTurns: 10 })}

    def reset(self, seed=None):
        rng = JsRandom(seed)
        digits = list(range(10))
        for i in range(9, 0, -1):
            j = math.floor(rng.random() * (i + 1))
            digits[i], digits[j] = digits[j], digits[i]
        self.code = "".join(str(d) for d in digits[:4])
        self.guesses = []
        self.done = False
        self.candidates = [s for s in ("%04d" % n for n in range(10000)) if len(set(s)) == 4]
        return ("A vault has a secret 4-digit code with 4 distinct digits. Guess it: answer with \\boxed{dddd}. "
                "After each guess you learn how many digits are in the right place (hits) and how many are in the code but elsewhere (near). "
                "You have 10 guesses."), {}

    @staticmethod
    def score(code, guess):
        hits = sum(1 for i in range(4) if guess[i] == code[i])
        near = sum(1 for i in range(4) if guess[i] != code[i] and guess[i] in code)
        return hits, near

    def step(self, action):
        if self.done:
            return "The vault is closed.", 0, True, False, {}
        guess = re.sub(r"\s+", "", boxed(action) or "")
        if not re.fullmatch(r"\d{4}", guess) or len(set(guess)) != 4:
            return "Invalid guess: give exactly 4 distinct digits as \\boxed{dddd}.", 0, False, False, {"valid": False}
        hits, near = self.score(self.code, guess)
        self.guesses.append(guess)
        self.candidates = [c for c in self.candidates if self.score(c, guess) == (hits, near)]
        if hits == 4:
            self.done = True
            return guess + ": the vault opens!", 1, True, False, {"guesses": len(self.guesses)}
        return "%s: %d hits, %d near. %d guesses left." % (guess, hits, near, 10 - len(self.guesses)), 0, False, False, {"hits": hits, "near": near}

    def hint(self):
        return "The code starts with %s and ends with %s." % (self.code[0], self.code[3])

    def solve(self):
        return "\\boxed{" + self.candidates[0] + "}"
`;

/** counterfeit-coin (src/envs/library/counterfeit-coin.js) in Python. */
export const COUNTERFEIT_COIN_PY = String.raw`"""Generated game for Logical Deduction"""
${PYTHON_PRELUDE}

class CounterfeitCoinEnv:
    """Find the one fake coin with three weighings."""
    meta = ${pythonMeta({ name: "counterfeit-coin", skill: "Logical Deduction", description: "Among up to 27 identical-looking coins one is counterfeit: either known to be heavier, or (with up to 12 coins) heavier or lighter, unknown which. Use at most three balance-scale weighings, chosen adaptively, then name the fake coin.", maxTurns: 6 })}
    WEIGHINGS = 3

    def reset(self, seed=None):
        rng = JsRandom(seed)
        self.known_heavy = rng.random() < 0.5
        self.coins = 10 + math.floor(rng.random() * 18) if self.known_heavy else 6 + math.floor(rng.random() * 7)
        self.fake = 1 + math.floor(rng.random() * self.coins)
        self.heavy = self.known_heavy or rng.random() < 0.5
        self.hint_offset = math.floor(rng.random() * 4)
        self.left = self.WEIGHINGS
        self.log = []
        self.done = False
        if self.known_heavy:
            rule = "Exactly one is counterfeit, and it is HEAVIER than the others. Name it, e.g. \\boxed{coin 5}."
        else:
            rule = "Exactly one is counterfeit; it is either heavier or lighter than the others, you do not know which. Name it and say which, e.g. \\boxed{coin 5 lighter}."
        observation = ("You have %d coins numbered 1-%d. %s " % (self.coins, self.coins, rule)
                       + "You may use a balance scale at most 3 times; naming a coin ends the game. "
                       + "To weigh, put the same number of coins on each pan, e.g. \\boxed{1,2,3 vs 4,5,6}.")
        return observation, {"fake": self.fake, "heavy": self.heavy}

    def _plural(self):
        return "%d weighing%s" % (self.left, "" if self.left == 1 else "s")

    def invalid(self, why):
        naming = "\\boxed{coin 5}" if self.known_heavy else "\\boxed{coin 5 lighter}"
        return "%s Name the fake like %s, or weigh with e.g. \\boxed{1,2 vs 3,4} (%s left)." % (why, naming, self._plural()), 0, False, False, {"valid": False}

    def weigh(self, left, right):
        both = left + right
        if not left or len(left) != len(right):
            return self.invalid("Both pans need the same, non-zero number of coins.")
        if any(c < 1 or c > self.coins for c in both):
            return self.invalid("Coins are numbered 1 to %d." % self.coins)
        if len(set(both)) != len(both):
            return self.invalid("A coin can only be in one place at a time.")
        if self.left == 0:
            return self.invalid("The scale is gone: no weighings left, name the fake coin now.")
        self.left -= 1
        sign = 1 if self.heavy else -1
        tilt = sign if self.fake in left else -sign if self.fake in right else 0
        outcome = "the LEFT pan is heavier" if tilt > 0 else "the RIGHT pan is heavier" if tilt < 0 else "the pans BALANCE"
        line = "%s vs %s: %s" % (",".join(map(str, left)), ",".join(map(str, right)), outcome)
        self.log.append(line)
        return "Weighing %d: %s. %s left." % (len(self.log), line, self._plural()), 0, False, False, {}

    def step(self, action):
        if self.done:
            return "The coins have been put away.", 0, True, False, {}
        answer = (boxed(action) or "").lower()
        pans = re.split(r"\s+vs\.?\s+|\s+v\s+|\||\s+versus\s+|\s+against\s+", answer)
        side = lambda t: [int(n) for n in re.findall(r"\d+", t)]
        if len(pans) == 2:
            return self.weigh(side(pans[0]), side(pans[1]))
        numbers = side(answer)
        if len(numbers) != 1:
            return self.invalid("Give either a weighing or exactly one coin number.")
        said = True if re.search("heav", answer) else False if re.search("light", answer) else None
        if not self.known_heavy and said is None:
            return self.invalid("Also say whether the fake is heavier or lighter.")
        self.done = True
        right = numbers[0] == self.fake and (self.known_heavy or said == self.heavy)
        truth = "coin %d%s" % (self.fake, "" if self.known_heavy else ", heavier" if self.heavy else ", lighter")
        if right:
            return "Correct: the counterfeit is %s." % truth, 1, True, False, {"correct": True}
        return "Wrong: the counterfeit was %s." % truth, 0, True, False, {"correct": False}

    def hint(self):
        start = max(1, min(self.fake - self.hint_offset, self.coins - 3))
        block = [c for c in range(start, start + 4) if c <= self.coins]
        weight = "" if self.known_heavy else " It is %s than the genuine coins." % ("heavier" if self.heavy else "lighter")
        return "The counterfeit is one of coins %s.%s Split candidates into three groups of nearly equal size for every weighing." % (", ".join(map(str, block)), weight)

    def solve(self):
        return "\\boxed{coin %d%s}" % (self.fake, "" if self.known_heavy else " heavier" if self.heavy else " lighter")
`;

/** inventory-query's tool specs (as its JavaScript `static meta.tools`): JSON, which is a Python literal here. */
const TOOLS_LITERAL = String.raw`[{"type":"function","function":{"name":"query_items","description":"Filter, sort and page the catalog (5 items per page). Every filter field is optional.","parameters":{"type":"object","properties":{"filter":{"type":"object","properties":{"category":{"type":"string","enum":["kitchen","office","garden","lighting","tools"]},"price":{"type":"object","properties":{"min":{"type":"number"},"max":{"type":"number"}}},"min_rating":{"type":"number"},"supplier_country":{"type":"string"},"in_stock":{"type":"boolean","description":"true: only items with stock in some warehouse"}}},"sort":{"type":"object","properties":{"field":{"type":"string","enum":["price","rating","name"]},"order":{"type":"string","enum":["asc","desc"]}},"required":["field","order"]},"page":{"type":"integer","minimum":1}},"required":["filter"]}}},{"type":"function","function":{"name":"get_item","description":"Full record of one item: supplier and stock per warehouse.","parameters":{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}}},{"type":"function","function":{"name":"list_categories","description":"Category names with item counts.","parameters":{"type":"object","properties":{}}}}]`;

/** inventory-query (src/envs/library/inventory-query.js) in Python: a tool-use game (meta tools, tool calls in, tool results out). */
export const INVENTORY_QUERY_PY = String.raw`"""Generated game for Data Retrieval"""
${PYTHON_PRELUDE}

NOUNS = {
    "kitchen": ["Kettle", "Skillet", "Knife Set", "Cutting Board", "Mixing Bowl", "Colander", "Whisk", "Teapot", "Grater"],
    "office": ["Stapler", "Desk Lamp", "Notebook", "Monitor Arm", "Pen Set", "Paper Tray", "Chair Mat", "Label Maker", "Whiteboard"],
    "garden": ["Trowel", "Hose", "Pruner", "Rake", "Planter", "Watering Can", "Seed Tray", "Kneeler", "Sprinkler"],
    "lighting": ["Floor Lamp", "LED Strip", "Bulb Pack", "Lantern", "Pendant", "Spotlight", "Night Light", "Wall Sconce", "Reading Light"],
    "tools": ["Hammer", "Drill", "Level", "Wrench Set", "Saw", "Tape Measure", "Clamp", "Sander", "Screwdriver Set"],
}
SUPPLIERS = [
    {"name": "Brandt Werke", "country": "Germany"},
    {"name": "Hoffmann GmbH", "country": "Germany"},
    {"name": "Kiso Works", "country": "Japan"},
    {"name": "Tanaka Trading", "country": "Japan"},
    {"name": "Sierra Supply", "country": "Mexico"},
    {"name": "Grupo Alba", "country": "Mexico"},
]
ADJECTIVES = ["Classic", "Pro", "Compact", "Deluxe", "Eco", "Nordic", "Urban", "Heritage"]


def total(it):
    return sum(w["qty"] for w in it["stock"])


class InventoryQueryEnv:
    """Answer one question about a product database with a query tool."""
    meta = ${pythonMeta({ name: "inventory-query", skill: "Data Retrieval", description: "Answer one question about a 45-item product database (best-rated item in a price band, units held in one warehouse, cheapest qualifying item's supplier) using a query tool with nested filter and sort objects, pagination and item details.", maxTurns: 14, tools: JSON.parse(TOOLS_LITERAL) })}

    def rint(self, lo, hi):
        return lo + math.floor(self.rng.random() * (hi - lo + 1))

    def pick(self, xs):
        return xs[math.floor(self.rng.random() * len(xs))]

    def reset(self, seed=None):
        self.rng = JsRandom(seed)
        rint, pick = self.rint, self.pick
        self.items = []
        used = set()
        for category, nouns in NOUNS.items():
            for i, noun in enumerate(nouns):
                while True:
                    cents = rint(499, 19999)
                    if cents not in used:
                        break
                used.add(cents)
                empty = self.rng.random() < 0.2
                sku = "%s-%d%d%d" % (category[:3].upper(), rint(1, 9), i, rint(0, 9))
                name = pick(ADJECTIVES) + " " + noun
                price = cents / 100
                rating = rint(10, 50) / 10
                supplier = dict(pick(SUPPLIERS))
                stock = []
                for warehouse in ("north", "south", "east"):
                    qty = 0 if empty else 0 if self.rng.random() < 0.3 else rint(1, 60)
                    stock.append({"warehouse": warehouse, "qty": qty})
                self.items.append({"sku": sku, "name": name, "category": category, "price": price,
                                   "rating": rating, "supplier": supplier, "stock": stock})
        self.warehouses = ["north", "south", "east"]
        self.kind = pick(["best_rated", "units", "supplier"])
        self.category = pick(list(NOUNS))
        self.seen = []
        self.pages_read = set()
        self.done = False
        self.plan()
        return ("You are a purchasing analyst with read-only access to the product database (query_items, get_item, list_categories). "
                "Question: " + self.question + " Give the answer alone as your final answer in \\boxed{}. You get one answer."), {"kind": self.kind}

    def plan(self):
        rint = self.rint
        in_cat = [it for it in self.items if it["category"] == self.category]
        if self.kind == "best_rated":
            prices = sorted(it["price"] for it in in_cat if total(it) > 0)
            self.min = math.floor(prices[math.floor(len(prices) * 0.2)])
            self.max = math.ceil(prices[math.floor(len(prices) * 0.8)])
            m = sorted((it for it in in_cat if total(it) > 0 and self.min <= it["price"] <= self.max),
                       key=lambda it: (-it["rating"], it["price"]))
            for other in m[1:]:
                if other["rating"] >= m[0]["rating"]:
                    other["rating"] = math.floor((m[0]["rating"] - 0.1) * 10 + 0.5) / 10
            self.target_items = [m[0]]
            self.answer = m[0]["sku"]
            self.filter = {"category": self.category, "price": {"min": self.min, "max": self.max}, "in_stock": True}
            self.sort = {"field": "rating", "order": "desc"}
            self.question = "Among %s items that are in stock and priced from $%d to $%d (inclusive), which has the highest rating? Answer with its SKU." % (self.category, self.min, self.max)
        elif self.kind == "units":
            countries = ["Germany", "Japan", "Mexico"]
            counts = [sum(1 for it in in_cat if it["supplier"]["country"] == c) for c in countries]
            self.country = countries[counts.index(max(counts))]
            self.warehouse = self.warehouses[rint(0, 2)]
            m = [it for it in in_cat if it["supplier"]["country"] == self.country]
            slot = lambda it: next(w for w in it["stock"] if w["warehouse"] == self.warehouse)
            if sum(slot(it)["qty"] for it in m) < 10:
                slot(m[0])["qty"] += rint(10, 40)
            self.target_items = m
            self.answer = str(sum(slot(it)["qty"] for it in m))
            self.filter = {"category": self.category, "supplier_country": self.country}
            self.sort = {"field": "name", "order": "asc"}
            self.question = "How many units of %s items supplied from %s are held in the %s warehouse in total? Answer with a whole number." % (self.category, self.country, self.warehouse)
        else:
            self.min_rating = rint(30, 40) / 10
            m = sorted((it for it in in_cat if it["rating"] >= self.min_rating), key=lambda it: it["price"])
            if not m:
                in_cat[0]["rating"] = 4.5
                m = [in_cat[0]]
            self.target_items = [m[0]]
            self.answer = m[0]["supplier"]["name"]
            self.filter = {"category": self.category, "min_rating": self.min_rating}
            self.sort = {"field": "price", "order": "asc"}
            self.question = "Which supplier makes the cheapest %s item rated %.1f or higher (in stock or not)? Answer with the supplier's name." % (self.category, self.min_rating)

    @staticmethod
    def schema_error(schema, value, path):
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if "enum" in schema and value not in schema["enum"]:
            return "%s must be one of %s" % (path, ", ".join(schema["enum"]))
        t = schema.get("type")
        if t == "object":
            if not isinstance(value, dict):
                return path + " must be an object"
            for key in schema.get("required", []):
                if key not in value:
                    return "%s.%s is required" % (path, key)
            for key in value:
                sub = schema.get("properties", {}).get(key)
                if sub is None:
                    return "%s.%s is not a filterable field" % (path, key)
                err = InventoryQueryEnv.schema_error(sub, value[key], path + "." + key)
                if err:
                    return err
        elif t == "number" and not (is_number and math.isfinite(value)):
            return path + " must be a number"
        elif t == "integer" and not (is_number and float(value).is_integer() and value >= schema.get("minimum", -math.inf)):
            return "%s must be an integer >= %s" % (path, js_str(schema.get("minimum")) if "minimum" in schema else "undefined")
        elif t == "string" and not isinstance(value, str):
            return path + " must be a string"
        elif t == "boolean" and not isinstance(value, bool):
            return path + " must be true or false"
        return None

    def query(self, args):
        f = args["filter"]
        price = f.get("price")
        rows = [it for it in self.items
                if ("category" not in f or it["category"] == f["category"])
                and (price is None or (("min" not in price or it["price"] >= price["min"]) and ("max" not in price or it["price"] <= price["max"])))
                and ("min_rating" not in f or it["rating"] >= f["min_rating"])
                and ("supplier_country" not in f or it["supplier"]["country"].lower() == f["supplier_country"].strip().lower())
                and ("in_stock" not in f or (total(it) > 0) == f["in_stock"])]
        sort = args.get("sort") or {"field": "name", "order": "asc"}
        desc = sort["order"] == "desc"
        if sort["field"] == "name":
            rows = sorted(rows, key=lambda it: (it["name"], it["sku"]), reverse=desc)
        else:
            rows = sorted(rows, key=lambda it: -it[sort["field"]] if desc else it[sort["field"]])
        pages = max(1, math.ceil(len(rows) / 5))
        page = args.get("page") or 1
        if page > pages:
            return {"error": "PAGE_OUT_OF_RANGE", "message": "There are %d page(s)." % pages}
        if js_json(f) == js_json(self.filter):
            self.pages_read.add(page)
        page = int(page)
        return {"total": len(rows), "page": page, "pages": pages,
                "items": [{"sku": it["sku"], "name": it["name"], "price": it["price"], "rating": it["rating"], "stock_total": total(it)}
                          for it in rows[(page - 1) * 5:page * 5]]}

    def call(self, name, args):
        spec = next((t for t in self.meta["tools"] if t["function"]["name"] == name), None)
        if spec is None:
            return {"error": "UNKNOWN_TOOL", "message": "No tool named %s." % json.dumps(name, ensure_ascii=False)}
        err = self.schema_error(spec["function"]["parameters"], args, "arguments")
        if err:
            return {"error": "INVALID_ARGUMENTS", "message": err}
        if name == "list_categories":
            return {"categories": [{"category": c, "items": sum(1 for it in self.items if it["category"] == c)} for c in NOUNS]}
        if name == "query_items":
            return self.query(args)
        it = next((x for x in self.items if x["sku"] == args["sku"].strip().upper()), None)
        if it is None:
            return {"error": "NOT_FOUND", "message": "No item with that SKU."}
        if it["sku"] not in self.seen:
            self.seen.append(it["sku"])
        return copy.deepcopy(it)

    def step(self, action):
        calls = action.get("toolCalls") or []
        if self.done:
            results = [{"id": c["id"], "content": "Episode over."} for c in calls] if calls else None
            return "The question has been answered already.", 0, True, False, {}, results
        observation, reward, terminated, info, results = "", 0, False, {}, None
        if calls:
            results = [{"id": c["id"], "content": js_json(self.call(c["name"], c["arguments"]))} for c in calls]
            observation = "Query results returned."
        answer = action["answer"].strip() if isinstance(action.get("answer"), str) else ""
        if answer:
            self.done = True
            norm = lambda s: re.sub(r"[\s$,.]+", " ", s.lower()).strip()
            ok = norm(answer) == norm(self.answer)
            reward, terminated = (1 if ok else 0), True
            observation = "Correct." if ok else "That is not the right answer."
            info = {"success": ok}
        elif not calls:
            observation = "Query the database with the tools, then give the answer in \\boxed{}."
        return observation, reward, terminated, False, info, results

    def hint(self):
        parts = ["Use query_items with filter %s and sort %s." % (js_json(self.filter), js_json(self.sort))]
        if self.kind == "units":
            parts.append("Then call get_item on each of the %d matching items (%s) and add their %s quantities." % (
                len(self.target_items), ", ".join(it["sku"] for it in self.target_items), self.warehouse))
        elif self.kind == "supplier":
            parts.append("The first result is %s; get_item shows its supplier." % self.target_items[0]["sku"])
        else:
            parts.append("The top result is the answer (rating %s)." % js_str(self.target_items[0]["rating"]))
        return " ".join(parts)

    def solve(self):
        pages = math.ceil(len(self.target_items) / 5) if self.kind == "units" else 1
        for page in range(1, pages + 1):
            if page not in self.pages_read:
                return {"toolCalls": [{"name": "query_items", "arguments": {"filter": self.filter, "sort": self.sort, "page": page}}]}
        if self.kind != "best_rated":
            nxt = next((it for it in self.target_items if it["sku"] not in self.seen), None)
            if nxt is not None:
                return {"toolCalls": [{"name": "get_item", "arguments": {"sku": nxt["sku"]}}]}
        return {"text": "\\boxed{" + self.answer + "}"}
`;

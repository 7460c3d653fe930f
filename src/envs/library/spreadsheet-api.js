// Spreadsheet API: read-then-write. Read an orders sheet in size-limited ranges, compute a column
// (totals with discount and currency rates, or review flags) and a summary, and write them back
// with nested cell addresses. Every other cell must stay untouched.
class Environment {
  static meta = {
    name: "spreadsheet-api",
    skill: "State Modification",
    description:
      "Fill a computed column and a summary in a small workbook through a spreadsheet API: read ranges of at most 40 cells with nested {start, end} cell addresses, compute line totals (discounts, exchange rates from another sheet) or review flags, write them with batched nested updates, and finish.",
    maxTurns: 16,
    tools: [
      {
        type: "function",
        function: {
          name: "list_sheets",
          description: "Sheet names with their used size.",
          parameters: { type: "object", properties: {} },
        },
      },
      {
        type: "function",
        function: {
          name: "read_range",
          description: "Read a rectangle of cells (at most 40 cells). Rows start at 1, columns are letters A-Z.",
          parameters: {
            type: "object",
            properties: {
              sheet: { type: "string" },
              range: {
                type: "object",
                properties: {
                  start: { type: "object", properties: { row: { type: "integer", minimum: 1 }, col: { type: "string" } }, required: ["row", "col"] },
                  end: { type: "object", properties: { row: { type: "integer", minimum: 1 }, col: { type: "string" } }, required: ["row", "col"] },
                },
                required: ["start", "end"],
              },
            },
            required: ["sheet", "range"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "write_cells",
          description: "Write values into cells. A null value clears a cell.",
          parameters: {
            type: "object",
            properties: {
              sheet: { type: "string" },
              updates: {
                type: "array",
                minItems: 1,
                items: {
                  type: "object",
                  properties: {
                    cell: { type: "object", properties: { row: { type: "integer", minimum: 1 }, col: { type: "string" } }, required: ["row", "col"] },
                    value: { type: ["number", "string", "null"] },
                  },
                  required: ["cell", "value"],
                },
              },
            },
            required: ["sheet", "updates"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "finish",
          description: "Declare the workbook done. Ends the task.",
          parameters: { type: "object", properties: {} },
        },
      },
    ],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const round2 = (x) => Math.round(x * 100 + 1e-9) / 100;
    this.task = pick(["totals", "fx", "flags"]);
    const regions = ["North", "South", "West"];
    const products = ["Widget", "Gasket", "Bracket", "Valve", "Hinge", "Spring", "Pulley", "Socket"];
    const n = rint(9, 12);
    const header = ["Order ID", "Region", "Product", "Qty", "Unit Price", "Currency", "Discount %", this.task === "flags" ? "Flag" : "Total (EUR)"];
    const orders = [header];
    for (let i = 0; i < n; i++) {
      const currency = this.task === "fx" ? pick(["EUR", "USD", "GBP"]) : "EUR";
      orders.push([`SO-${rint(1000, 9999)}`, pick(regions), pick(products), rint(1, 40), rint(200, 9000) / 100, currency, pick([0, 5, 10, 15, 20]), null]);
    }
    this.sheets = { Orders: orders };
    const rates = { EUR: 1, USD: rint(8800, 9400) / 10000, GBP: rint(11400, 11900) / 10000 };
    if (this.task === "fx") this.sheets.Rates = [["Currency", "To EUR"], ["USD", rates.USD], ["GBP", rates.GBP], ["EUR", 1]];
    const expectedOrders = orders.map((r) => r.slice());
    if (this.task === "flags") {
      this.qtyLimit = rint(20, 30);
      this.discountLimit = pick([15, 20]);
      let count = 0;
      for (const r of expectedOrders.slice(1)) {
        const flag = r[3] > this.qtyLimit || r[6] >= this.discountLimit;
        r[7] = flag ? "REVIEW" : null;
        if (flag) count++;
      }
      this.sheets.Summary = [["Metric", "Value"], ["Rows to review", null]];
      this.expected = { Orders: expectedOrders, Summary: [["Metric", "Value"], ["Rows to review", count]] };
      this.request = `In Orders column H (Flag), write REVIEW on every order with Qty above ${this.qtyLimit} or Discount % of ${this.discountLimit} or more, and leave the other rows empty. Then write the number of flagged orders into Summary cell B2.`;
    } else {
      const byRegion = { North: 0, South: 0, West: 0 };
      for (const r of expectedOrders.slice(1)) {
        r[7] = round2(r[3] * r[4] * (1 - r[6] / 100) * rates[r[5]]);
        byRegion[r[1]] = round2(byRegion[r[1]] + r[7]);
      }
      const order = regions.slice();
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      this.sheets.Summary = [["Region", "Revenue (EUR)"], ...order.map((g) => [g, null])];
      this.expected = { Orders: expectedOrders, Summary: [["Region", "Revenue (EUR)"], ...order.map((g) => [g, byRegion[g]])] };
      this.request =
        "In Orders column H, write each order's total in EUR: Qty x Unit Price x (1 - Discount % / 100)" +
        (this.task === "fx" ? " x the currency's To EUR rate from the Rates sheet" : "") +
        ", rounded to 2 decimals. Then in Summary column B, write each region's revenue: the sum of its rounded order totals.";
    }
    this.expected = Object.fromEntries(Object.keys(this.sheets).map((k) => [k, this.expected[k] || this.sheets[k].map((r) => r.slice())]));
    this.readCells = {};
    this.finished = false;
    return {
      observation: `You edit a workbook through a spreadsheet API (list_sheets, read_range, write_cells, finish). Task: ${this.request} Do not change any other cell. Call finish when done.`,
      info: { task: this.task },
    };
  }

  static schemaError(schema, value, path) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const typeOf = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === "integer" && types.includes("number"))) return `${path} must be ${types.join(" or ")}`;
    if (actual === "object") {
      for (const key of schema.required || []) if (!(key in value)) return `${path}.${key} is required`;
      for (const key of Object.keys(value)) {
        if (!schema.properties[key]) return `${path}.${key} is not a known field`;
        const err = Environment.schemaError(schema.properties[key], value[key], `${path}.${key}`);
        if (err) return err;
      }
    } else if (actual === "array") {
      if (value.length < (schema.minItems || 0)) return `${path} must not be empty`;
      for (let i = 0; i < value.length; i++) {
        const err = Environment.schemaError(schema.items, value[i], `${path}[${i}]`);
        if (err) return err;
      }
    } else if (actual === "integer" && schema.minimum !== undefined && value < schema.minimum) return `${path} must be >= ${schema.minimum}`;
    else if (actual === "number" && !Number.isFinite(value)) return `${path} must be finite`;
    return null;
  }

  // A cell address {row, col} as zero-based indices, or an error string.
  static index(cell, path) {
    const col = typeof cell.col === "string" ? cell.col.trim().toUpperCase() : "";
    if (!/^[A-Z]$/.test(col)) return `${path}.col must be one letter A-Z`;
    if (cell.row > 200) return `${path}.row must be at most 200`;
    return [cell.row - 1, col.charCodeAt(0) - 65];
  }

  sheet(name) {
    const key = Object.keys(this.sheets).find((k) => k.toLowerCase() === String(name).trim().toLowerCase());
    return key === undefined ? null : key;
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "list_sheets") {
      return { sheets: Object.entries(this.sheets).map(([k, rows]) => ({ name: k, rows: rows.length, cols: String.fromCharCode(64 + Math.max(...rows.map((r) => r.length))) })) };
    }
    if (name === "finish") {
      this.finished = true;
      return { status: "finished" };
    }
    const key = this.sheet(args.sheet);
    if (key === null) return { error: "NO_SUCH_SHEET", message: `Sheets: ${Object.keys(this.sheets).join(", ")}.` };
    const rows = this.sheets[key];
    if (name === "read_range") {
      const a = Environment.index(args.range.start, "range.start");
      const b = Environment.index(args.range.end, "range.end");
      if (typeof a === "string" || typeof b === "string") return { error: "INVALID_RANGE", message: typeof a === "string" ? a : b };
      if (b[0] < a[0] || b[1] < a[1]) return { error: "INVALID_RANGE", message: "end must be below and right of start." };
      const cells = (b[0] - a[0] + 1) * (b[1] - a[1] + 1);
      if (cells > 40) return { error: "RANGE_TOO_LARGE", message: `That is ${cells} cells; read at most 40 at a time.` };
      const values = [];
      for (let r = a[0]; r <= b[0]; r++) {
        const row = [];
        for (let c = a[1]; c <= b[1]; c++) {
          row.push(rows[r] && rows[r][c] !== undefined ? rows[r][c] : null);
          (this.readCells[key] = this.readCells[key] || {})[`${r},${c}`] = true;
        }
        values.push(row);
      }
      return { sheet: key, values };
    }
    const parsed = [];
    for (let i = 0; i < args.updates.length; i++) {
      const at = Environment.index(args.updates[i].cell, `updates[${i}].cell`);
      if (typeof at === "string") return { error: "INVALID_CELL", message: at };
      parsed.push([at, args.updates[i].value]);
    }
    for (const [[r, c], value] of parsed) {
      while (rows.length <= r) rows.push([]);
      while (rows[r].length <= c) rows[r].push(null);
      rows[r][c] = value === "" ? null : value;
    }
    return { sheet: key, updated: parsed.length };
  }

  static same(got, want) {
    if (want === null || want === undefined) return got === null || got === undefined;
    // A cent of slack: half-cent rounding differs between calculators.
    if (typeof want === "number") return got !== null && got !== "" && Math.abs(Number(got) - want) < 0.011;
    return typeof got === "string" && got.trim().toUpperCase() === want.toUpperCase();
  }

  wrongCells() {
    const wrong = [];
    for (const [key, want] of Object.entries(this.expected)) {
      const got = this.sheets[key];
      const height = Math.max(got.length, want.length);
      for (let r = 0; r < height; r++) {
        const width = Math.max((got[r] || []).length, (want[r] || []).length);
        for (let c = 0; c < width; c++) {
          if (!Environment.same((got[r] || [])[c], (want[r] || [])[c])) wrong.push(`${key}!${String.fromCharCode(65 + c)}${r + 1}`);
        }
      }
    }
    return wrong;
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.finished) {
      out.observation = "The workbook was already submitted.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "Finished already." }));
      return out;
    }
    if (!calls.length) {
      out.observation = "Use the spreadsheet tools; call finish when the workbook is done.";
      return out;
    }
    out.toolResults = calls.map((c) => ({ id: c.id, content: this.finished ? "Finished already." : JSON.stringify(this.call(c.name, c.arguments)) }));
    out.observation = "Tool results returned.";
    if (this.finished) {
      const wrong = this.wrongCells();
      out.terminated = true;
      out.reward = wrong.length === 0 ? 1 : 0;
      out.observation = wrong.length === 0 ? "The workbook checks out." : `The workbook has ${wrong.length} wrong cell(s).`;
      out.info = { success: wrong.length === 0, wrongCells: wrong.slice(0, 20) };
    }
    return out;
  }

  hint() {
    const col = this.expected.Orders.slice(1).map((r) => r[7]);
    const summary = this.expected.Summary.slice(1).map((r) => `${r[0]}=${r[1]}`);
    return `Orders H2:H${col.length + 1} should be ${JSON.stringify(col)}; Summary B column: ${summary.join(", ")}.`.slice(0, 2000);
  }

  solve() {
    // Read what the computation needs, 40 cells at a time, before writing anything.
    const needs = [["Orders", this.sheets.Orders.length, 8]];
    if (this.task === "fx") needs.push(["Rates", 4, 2]);
    needs.push(["Summary", this.sheets.Summary.length, 2]);
    for (const [key, height, width] of needs) {
      const seen = this.readCells[key] || {};
      for (let r = 0; r < height; r++) {
        if (!seen[`${r},${width - 1}`] || !seen[`${r},0`]) {
          const last = Math.min(height, r + Math.floor(40 / width));
          const end = String.fromCharCode(64 + width);
          return { toolCalls: [{ name: "read_range", arguments: { sheet: key, range: { start: { row: r + 1, col: "A" }, end: { row: last, col: end } } } }] };
        }
      }
    }
    for (const key of ["Orders", "Summary"]) {
      const wrong = this.wrongCells().filter((w) => w.startsWith(`${key}!`));
      if (wrong.length) {
        const updates = wrong.map((w) => {
          const c = w.charCodeAt(key.length + 1) - 65;
          const r = Number(w.slice(key.length + 2)) - 1;
          const v = (this.expected[key][r] || [])[c];
          return { cell: { row: r + 1, col: String.fromCharCode(65 + c) }, value: v === undefined ? null : v };
        });
        return { toolCalls: [{ name: "write_cells", arguments: { sheet: key, updates } }] };
      }
    }
    return { toolCalls: [{ name: "finish", arguments: {} }] };
  }
}

// Warehouse restock: a two-warehouse replenishment cycle. Find low stock page by page, move
// surplus between warehouses first, buy the rest from the cheapest fast supplier respecting
// minimum order quantities, and group purchase-order lines per supplier and warehouse.
// Long-horizon: about twenty calls.
class Environment {
  static meta = {
    name: "warehouse-restock",
    skill: "Multi-Step Workflows",
    description:
      "Run a restock cycle for two warehouses: page through low-stock lists, check each SKU in both warehouses, transfer the other warehouse's surplus first, buy the remainder from the cheapest supplier that delivers within 5 days (respecting minimum order quantity), one purchase order per supplier and warehouse with nested lines and dock. About twenty tool calls.",
    maxTurns: 40,
    tools: [
      {
        type: "function",
        function: {
          name: "list_low_stock",
          description: "SKUs below their reorder point in one warehouse, 3 per page.",
          parameters: {
            type: "object",
            properties: { warehouse: { type: "string", enum: ["north", "south"] }, page: { type: "integer", minimum: 1 } },
            required: ["warehouse", "page"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "get_stock",
          description: "A SKU's on-hand, reorder point and target level in every warehouse.",
          parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
        },
      },
      {
        type: "function",
        function: {
          name: "list_suppliers",
          description: "Suppliers of a SKU with unit price, minimum order quantity and lead time.",
          parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
        },
      },
      {
        type: "function",
        function: {
          name: "transfer_stock",
          description: "Move stock between warehouses now.",
          parameters: {
            type: "object",
            properties: {
              transfer: {
                type: "object",
                properties: {
                  from_warehouse: { type: "string", enum: ["north", "south"] },
                  to_warehouse: { type: "string", enum: ["north", "south"] },
                  lines: {
                    type: "array",
                    minItems: 1,
                    items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 } }, required: ["sku", "qty"] },
                  },
                },
                required: ["from_warehouse", "to_warehouse", "lines"],
              },
            },
            required: ["transfer"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "create_purchase_order",
          description: "Order stock from a supplier for delivery to a warehouse dock.",
          parameters: {
            type: "object",
            properties: {
              po: {
                type: "object",
                properties: {
                  supplier_id: { type: "string" },
                  ship_to: {
                    type: "object",
                    properties: { warehouse: { type: "string", enum: ["north", "south"] }, dock: { type: "string" } },
                    required: ["warehouse", "dock"],
                  },
                  lines: {
                    type: "array",
                    minItems: 1,
                    items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer", minimum: 1 } }, required: ["sku", "qty"] },
                  },
                },
                required: ["supplier_id", "ship_to", "lines"],
              },
            },
            required: ["po"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "cancel_purchase_order",
          description: "Cancel a purchase order created in this cycle.",
          parameters: { type: "object", properties: { po_id: { type: "string" } }, required: ["po_id"] },
        },
      },
      {
        type: "function",
        function: {
          name: "close_cycle",
          description: "Close the restock cycle. Ends the task.",
          parameters: { type: "object", properties: {} },
        },
      },
    ],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const shuffle = (xs) => {
      const a = xs.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    };
    const names = ["Pallet wrap", "Carton 40x30", "Packing tape", "Label roll", "Bubble sheet", "Strap kit", "Work gloves", "Marker set", "Foam corners", "Zip bags"];
    const suppliers = shuffle(["Atlas Packaging", "Brightline Supply", "Cordova Trade", "Delta Wholesale", "Evergreen Goods"]).map((name, i) => ({ supplier_id: `SUP-${rint(10, 99)}${i}`, name }));
    this.suppliers = suppliers;
    const lowSlots = shuffle(names.map((_, i) => i));
    const lowNorth = new Set(lowSlots.slice(0, rint(3, 4)));
    const lowSouth = new Set(lowSlots.slice(4, 4 + rint(2, 3)));
    this.items = names.map((name, i) => {
      const sku = `SKU-${String(i + 1).padStart(2, "0")}${rint(0, 9)}`;
      const level = (low) => {
        const reorder = rint(2, 6) * 5;
        const target = reorder + rint(3, 8) * 5;
        // Stock that is not low sometimes carries surplus above target, available for transfers.
        const on_hand = low ? rint(0, reorder - 1) : Math.random() < 0.55 ? target + rint(3, 30) : rint(reorder, target);
        return { on_hand, reorder_point: reorder, target_level: target };
      };
      const offers = shuffle(suppliers).slice(0, 3).map((s) => ({ supplier_id: s.supplier_id, name: s.name, unit_price: rint(40, 900) / 100, min_order_qty: rint(1, 6) * 10, lead_days: rint(2, 12) }));
      if (!offers.some((o) => o.lead_days <= 5)) offers[rint(0, 2)].lead_days = rint(2, 5);
      // The cheapest offer is often too slow: a trap for agents that ignore lead time.
      if (Math.random() < 0.5) {
        const cheapest = offers.reduce((a, b) => (a.unit_price <= b.unit_price ? a : b));
        if (offers.filter((o) => o !== cheapest && o.lead_days <= 5).length > 0) cheapest.lead_days = rint(8, 14);
      }
      return { sku, name, stock: { north: level(lowNorth.has(i)), south: level(lowSouth.has(i)) }, offers };
    });
    this.docks = { north: "N1", south: "S2" };
    this.initial = JSON.parse(JSON.stringify(this.items.map((it) => it.stock)));
    this.planCycle();
    this.pos = [];
    this.transfers = [];
    this.pagesRead = [];
    this.checked = [];
    this.quoted = [];
    this.closed = false;
    return {
      observation:
        "You run this week's restock cycle for the north and south warehouses (tools: list_low_stock, get_stock, list_suppliers, transfer_stock, create_purchase_order, cancel_purchase_order, close_cycle). Policy, for every SKU below its reorder point in a warehouse:\n" +
        "1. The need is target_level minus on_hand.\n" +
        "2. First transfer from the other warehouse whatever it holds above its own target_level, up to the need.\n" +
        "3. Buy the rest from the cheapest supplier with lead_days of 5 or less: order exactly the rest, or that supplier's min_order_qty when the rest is smaller.\n" +
        "4. One purchase order per supplier and destination warehouse, holding all its lines; ship to dock N1 for north and S2 for south.\n" +
        "Close the cycle when every low SKU is covered.",
      info: { low: this.needs.length },
    };
  }

  // Computes the expected transfers and purchase lines from the initial stock.
  planCycle() {
    this.needs = [];
    this.expectedStock = JSON.parse(JSON.stringify(this.initial));
    const lines = {};
    for (const [w, other] of [["north", "south"], ["south", "north"]]) {
      this.items.forEach((it, i) => {
        const s = it.stock[w];
        if (s.on_hand >= s.reorder_point) return;
        const need = s.target_level - s.on_hand;
        const o = it.stock[other];
        const move = Math.min(need, Math.max(0, o.on_hand - o.target_level));
        const rest = need - move;
        const offer = it.offers.filter((x) => x.lead_days <= 5).sort((a, b) => a.unit_price - b.unit_price)[0];
        const buy = rest > 0 ? Math.max(rest, offer.min_order_qty) : 0;
        this.expectedStock[i][w].on_hand += move;
        this.expectedStock[i][other].on_hand -= move;
        if (buy > 0) {
          const key = `${offer.supplier_id}|${w}`;
          (lines[key] = lines[key] || []).push({ sku: it.sku, qty: buy });
        }
        this.needs.push({ sku: it.sku, warehouse: w, other, move, buy, supplier: buy > 0 ? offer.supplier_id : null });
      });
    }
    this.expectedPos = Object.entries(lines).map(([key, ls]) => {
      const [supplier_id, warehouse] = key.split("|");
      return { supplier_id, warehouse, lines: ls };
    });
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
      if (!Array.isArray(value) || value.length < (schema.minItems || 0)) return `${path} must be a non-empty array`;
      for (let i = 0; i < value.length; i++) {
        const err = Environment.schemaError(schema.items, value[i], `${path}[${i}]`);
        if (err) return err;
      }
    } else if (schema.type === "string" && typeof value !== "string") return `${path} must be a string`;
    else if (schema.type === "integer" && (!Number.isInteger(value) || value < (schema.minimum ?? -Infinity))) return `${path} must be an integer${schema.minimum ? ` >= ${schema.minimum}` : ""}`;
    return null;
  }

  item(sku) {
    return this.items.find((it) => it.sku === String(sku).trim().toUpperCase());
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "list_low_stock") {
      // Lists reflect the stock as it was when the cycle opened, like a nightly report.
      const low = this.items.filter((it, i) => this.initial[i][args.warehouse].on_hand < this.initial[i][args.warehouse].reorder_point);
      const pages = Math.max(1, Math.ceil(low.length / 3));
      const key = `${args.warehouse}:${args.page}`;
      if (!this.pagesRead.includes(key)) this.pagesRead.push(key);
      return { warehouse: args.warehouse, page: args.page, pages, items: low.slice((args.page - 1) * 3, args.page * 3).map((it) => ({ sku: it.sku, name: it.name })) };
    }
    if (name === "get_stock" || name === "list_suppliers") {
      const it = this.item(args.sku);
      if (!it) return { error: "NOT_FOUND", message: "Unknown SKU." };
      if (name === "get_stock") {
        if (!this.checked.includes(it.sku)) this.checked.push(it.sku);
        return { sku: it.sku, name: it.name, warehouses: ["north", "south"].map((w) => ({ warehouse: w, ...it.stock[w] })) };
      }
      if (!this.quoted.includes(it.sku)) this.quoted.push(it.sku);
      return { sku: it.sku, suppliers: it.offers.map((o) => ({ ...o })) };
    }
    if (name === "transfer_stock") return this.transfer(args.transfer);
    if (name === "create_purchase_order") return this.order(args.po);
    if (name === "cancel_purchase_order") {
      const po = this.pos.find((p) => p.po_id === args.po_id.trim() && p.status === "open");
      if (!po) return { error: "NOT_FOUND", message: "No open purchase order with that id." };
      po.status = "cancelled";
      return { po_id: po.po_id, status: "cancelled" };
    }
    this.closed = true;
    return { status: "closed" };
  }

  transfer(t) {
    if (t.from_warehouse === t.to_warehouse) return { error: "SAME_WAREHOUSE", message: "from_warehouse and to_warehouse must differ." };
    for (const line of t.lines) {
      const it = this.item(line.sku);
      if (!it) return { error: "NOT_FOUND", message: `Unknown SKU ${line.sku}.` };
      const total = t.lines.filter((l) => this.item(l.sku) === it).reduce((s, l) => s + l.qty, 0);
      if (total > it.stock[t.from_warehouse].on_hand) return { error: "INSUFFICIENT_STOCK", message: `${t.from_warehouse} holds only ${it.stock[t.from_warehouse].on_hand} of ${it.sku}.` };
    }
    for (const line of t.lines) {
      const it = this.item(line.sku);
      it.stock[t.from_warehouse].on_hand -= line.qty;
      it.stock[t.to_warehouse].on_hand += line.qty;
    }
    this.transfers.push(JSON.parse(JSON.stringify(t)));
    return { transfer_id: `TR-${this.transfers.length}`, status: "done", lines: t.lines.length };
  }

  order(po) {
    const supplierId = po.supplier_id.trim();
    if (!this.suppliers.some((s) => s.supplier_id === supplierId)) return { error: "UNKNOWN_SUPPLIER", message: "No supplier with that id." };
    if (po.ship_to.dock.trim().toUpperCase() !== this.docks[po.ship_to.warehouse]) {
      return { error: "INVALID_DOCK", message: `The ${po.ship_to.warehouse} warehouse receives at dock ${this.docks[po.ship_to.warehouse]}.` };
    }
    for (const line of po.lines) {
      const it = this.item(line.sku);
      if (!it) return { error: "NOT_FOUND", message: `Unknown SKU ${line.sku}.` };
      const offer = it.offers.find((o) => o.supplier_id === supplierId);
      if (!offer) return { error: "NOT_SUPPLIED", message: `${supplierId} does not supply ${it.sku}.` };
      if (line.qty < offer.min_order_qty) return { error: "BELOW_MINIMUM", message: `${supplierId} needs at least ${offer.min_order_qty} of ${it.sku}.` };
    }
    const record = { po_id: `PO-${4100 + this.pos.length}`, supplier_id: supplierId, warehouse: po.ship_to.warehouse, lines: po.lines.map((l) => ({ sku: this.item(l.sku).sku, qty: l.qty })), status: "open" };
    this.pos.push(record);
    return { po_id: record.po_id, status: "open" };
  }

  grade() {
    const stockOk = this.items.every((it, i) => ["north", "south"].every((w) => it.stock[w].on_hand === this.expectedStock[i][w].on_hand));
    const open = this.pos.filter((p) => p.status === "open");
    const agg = (list) => {
      const m = {};
      for (const p of list) for (const l of p.lines) m[`${p.supplier_id}|${p.warehouse}|${l.sku}`] = (m[`${p.supplier_id}|${p.warehouse}|${l.sku}`] || 0) + l.qty;
      return JSON.stringify(Object.keys(m).sort().map((k) => [k, m[k]]));
    };
    const posOk = open.length === this.expectedPos.length && agg(open) === agg(this.expectedPos);
    return { ok: stockOk && posOk, stockOk, posOk };
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.closed) {
      out.observation = "The cycle is closed.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "The cycle is closed." }));
      return out;
    }
    if (!calls.length) {
      out.observation = "Use the warehouse tools; close_cycle ends the task.";
      return out;
    }
    out.toolResults = calls.map((c) => ({ id: c.id, content: this.closed ? "The cycle is closed." : JSON.stringify(this.call(c.name, c.arguments)) }));
    out.observation = "Tool results returned.";
    if (this.closed) {
      const g = this.grade();
      out.terminated = true;
      out.reward = g.ok ? 1 : (g.stockOk ? 0.3 : 0) + (g.posOk ? 0.3 : 0);
      out.observation = g.ok ? "Audit passed: the cycle follows policy." : `Audit failed: stock levels ${g.stockOk ? "right" : "wrong"}, purchase orders ${g.posOk ? "right" : "wrong"}.`;
      out.info = { success: g.ok, stockOk: g.stockOk, posOk: g.posOk };
    }
    return out;
  }

  hint() {
    const moves = this.needs.filter((n) => n.move > 0).map((n) => `${n.move} ${n.sku} ${n.other}->${n.warehouse}`);
    const pos = this.expectedPos.map((p) => `${p.supplier_id} to ${p.warehouse}: ${p.lines.map((l) => `${l.qty} ${l.sku}`).join(", ")}`);
    return `Transfers: ${moves.join("; ") || "none"}. Purchase orders: ${pos.join(" | ") || "none"}.`;
  }

  solve() {
    for (const w of ["north", "south"]) {
      const low = this.needs.filter((n) => n.warehouse === w).length;
      for (let p = 1; p <= Math.max(1, Math.ceil(low / 3)); p++) if (!this.pagesRead.includes(`${w}:${p}`)) return { toolCalls: [{ name: "list_low_stock", arguments: { warehouse: w, page: p } }] };
    }
    for (const n of this.needs) {
      if (!this.checked.includes(n.sku)) return { toolCalls: [{ name: "get_stock", arguments: { sku: n.sku } }] };
      if (n.buy > 0 && !this.quoted.includes(n.sku)) return { toolCalls: [{ name: "list_suppliers", arguments: { sku: n.sku } }] };
    }
    // One transfer per direction, holding every line of that direction.
    for (const [from, to] of [["south", "north"], ["north", "south"]]) {
      const done = this.transfers.some((t) => t.from_warehouse === from && t.to_warehouse === to);
      const lines = this.needs.filter((n) => n.other === from && n.warehouse === to && n.move > 0).map((n) => ({ sku: n.sku, qty: n.move }));
      if (!done && lines.length) return { toolCalls: [{ name: "transfer_stock", arguments: { transfer: { from_warehouse: from, to_warehouse: to, lines } } }] };
    }
    for (const p of this.expectedPos) {
      if (this.pos.some((x) => x.status === "open" && x.supplier_id === p.supplier_id && x.warehouse === p.warehouse)) continue;
      return { toolCalls: [{ name: "create_purchase_order", arguments: { po: { supplier_id: p.supplier_id, ship_to: { warehouse: p.warehouse, dock: this.docks[p.warehouse] }, lines: p.lines.map((l) => ({ ...l })) } } }] };
    }
    return { toolCalls: [{ name: "close_cycle", arguments: {} }] };
  }
}

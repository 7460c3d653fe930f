// Shipping label: buy one label through a carrier API that rejects on purpose: unverified
// addresses, a carrier outage, parcels over a service's weight limit, missing insurance. The agent
// reads each error, fixes the nested shipment object and retries.
class Environment {
  static meta = {
    name: "shipping-label",
    skill: "Error Recovery",
    description:
      "Create a shipping label for an order: normalise the customer's address, pick the cheapest carrier service that is actually available, split the items into parcels under that service's weight limit in the stated order, insure valuable orders, recovering from each API error code along the way.",
    maxTurns: 14,
    tools: [
      {
        type: "function",
        function: {
          name: "validate_address",
          description: "Check an address and return its normalised form.",
          parameters: {
            type: "object",
            properties: {
              address: {
                type: "object",
                properties: {
                  name: { type: "string" },
                  street: { type: "string" },
                  postal_code: { type: "string" },
                  city: { type: "string" },
                  country: { type: "string", enum: ["NL", "GB", "PL", "DE"] },
                },
                required: ["name", "street", "postal_code", "city", "country"],
              },
            },
            required: ["address"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "get_rates",
          description: "Quote every carrier service for shipping an order to a country. Prices are per order.",
          parameters: {
            type: "object",
            properties: {
              destination: { type: "object", properties: { country: { type: "string", enum: ["NL", "GB", "PL", "DE"] } }, required: ["country"] },
              total_weight_kg: { type: "number" },
            },
            required: ["destination", "total_weight_kg"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "create_label",
          description: "Buy a label. The address must be the validated form. On success the order ships.",
          parameters: {
            type: "object",
            properties: {
              carrier: { type: "string" },
              service: { type: "string" },
              shipment: {
                type: "object",
                properties: {
                  to: {
                    type: "object",
                    properties: {
                      name: { type: "string" },
                      street: { type: "string" },
                      postal_code: { type: "string" },
                      city: { type: "string" },
                      country: { type: "string", enum: ["NL", "GB", "PL", "DE"] },
                    },
                    required: ["name", "street", "postal_code", "city", "country"],
                  },
                  parcels: {
                    type: "array",
                    minItems: 1,
                    items: {
                      type: "object",
                      properties: {
                        weight_kg: { type: "number" },
                        dimensions_cm: {
                          type: "object",
                          properties: { length: { type: "number" }, width: { type: "number" }, height: { type: "number" } },
                          required: ["length", "width", "height"],
                        },
                      },
                      required: ["weight_kg", "dimensions_cm"],
                    },
                  },
                },
                required: ["to", "parcels"],
              },
              options: { type: "object", properties: { insurance_eur: { type: "number" } } },
            },
            required: ["carrier", "service", "shipment"],
          },
        },
      },
    ],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const L = () => "ABDEFGHJLNPRSTUWXYZ"[rint(0, 18)];
    const country = pick(["NL", "GB", "PL", "DE"]);
    const person = pick(["Noor de Vries", "Oliver Hughes", "Zofia Nowak", "Jonas Weber", "Emma Jansen", "Piotr Zielinski"]);
    const places = {
      NL: () => {
        const d = rint(1000, 9999);
        const l = L() + L();
        return { street: `${pick(["Keizersgracht", "Prinsengracht", "Damrak"])} ${rint(1, 300)}`, postal_code: `${d} ${l}`, raw_postal: `${d}${l.toLowerCase()}`, city: pick(["Amsterdam", "Utrecht", "Haarlem"]) };
      },
      GB: () => {
        const out = `${pick(["SW", "EC", "NW", "SE"])}${rint(1, 9)}`;
        const inward = `${rint(1, 9)}${L()}${L()}`;
        return { street: `${rint(1, 200)} ${pick(["Baker Street", "Fleet Street", "Camden Road"])}`, postal_code: `${out} ${inward}`, raw_postal: `${out}${inward}`.toLowerCase(), city: "London" };
      },
      PL: () => {
        const a = String(rint(0, 99)).padStart(2, "0");
        const b = String(rint(0, 999)).padStart(3, "0");
        return { street: `ul. ${pick(["Marszalkowska", "Dluga", "Kwiatowa"])} ${rint(1, 120)}`, postal_code: `${a}-${b}`, raw_postal: `${a}${b}`, city: pick(["Warszawa", "Krakow", "Gdansk"]) };
      },
      DE: () => {
        const p = String(rint(10000, 99999));
        return { street: `${pick(["Hauptstrasse", "Gartenweg", "Lindenallee"])} ${rint(1, 90)}`, postal_code: p, raw_postal: ` ${p}`, city: pick(["Berlin", "Hamburg", "Leipzig"]) };
      },
    };
    const place = places[country]();
    this.address = { name: person, street: place.street, postal_code: place.postal_code, city: place.city, country };
    this.rawAddress = { name: person, street: place.street, postal_code: place.raw_postal, city: place.city.toUpperCase(), country };

    const catalog = [["Cast iron pan", 32], ["Stand mixer", 68], ["Book bundle", 41], ["Yoga mat", 15], ["Desk lamp", 22], ["Coffee grinder", 29], ["Rain jacket", 9], ["Tool box", 87], ["Blender", 44], ["Kettlebell", 80]];
    for (let i = catalog.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [catalog[i], catalog[j]] = [catalog[j], catalog[i]];
    }
    // Weights are kept in tenths of a kilogram so sums stay exact.
    this.items = catalog.slice(0, rint(4, 7)).map(([name, tenths]) => ({ name, tenths: tenths + rint(-5, 5), price: rint(10, 90) }));
    this.totalTenths = this.items.reduce((s, it) => s + it.tenths, 0);
    this.value = this.items.reduce((s, it) => s + it.price, 0);
    this.box = { length: 40, width: 30, height: 30 };

    const services = [
      { carrier: "ParcelGo", service: "Standard", max_parcel_kg: 30 },
      { carrier: "SwiftPost", service: "Economy", max_parcel_kg: 20 },
      { carrier: "EuroDash", service: "Express", max_parcel_kg: 25 },
      { carrier: "Nordic Freight", service: "Road", max_parcel_kg: 15 },
    ];
    const prices = [rint(700, 1100), rint(1150, 1500), rint(1550, 1900), rint(1950, 2400)];
    for (let i = prices.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [prices[i], prices[j]] = [prices[j], prices[i]];
    }
    this.quotes = services.map((s, i) => ({ ...s, price_eur: prices[i] / 100 })).sort((a, b) => a.price_eur - b.price_eur);
    this.outage = Math.random() < 0.6 ? this.quotes[0].carrier : null;
    this.choice = this.quotes.find((q) => q.carrier !== this.outage);
    this.parcels = this.pack(this.choice.max_parcel_kg * 10);
    this.insure = this.value > 250;
    this.validated = false;
    this.quoted = false;
    this.label = null;
    this.errors = [];
    const list = this.items.map((it) => `${it.name} (${(it.tenths / 10).toFixed(1)} kg, ${it.price} EUR)`).join(", ");
    return {
      observation:
        "You run shipping for a web shop with a carrier API (validate_address, get_rates, create_label).\n" +
        `Order to ship, items in packing order: ${list}.\n` +
        `Customer address as typed: ${JSON.stringify(this.rawAddress)}.\n` +
        "Policy: ship with the cheapest quoted service that is available. All parcels use the 40x30x30 cm box. " +
        "When the order is too heavy for one parcel of that service, fill parcels in the item order above, starting a new parcel whenever the next item would exceed the limit. " +
        "Insure orders worth more than 250 EUR for their full value (options.insurance_eur); do not insure cheaper orders. The task ends when a label is created.",
      info: { outage: this.outage, parcels: this.parcels.length },
    };
  }

  // Parcel weights (kg) when items are packed in order under `limitTenths`.
  pack(limitTenths) {
    const parcels = [];
    let current = 0;
    for (const it of this.items) {
      if (current > 0 && current + it.tenths > limitTenths) {
        parcels.push(current);
        current = 0;
      }
      current += it.tenths;
    }
    parcels.push(current);
    return parcels.map((t) => t / 10);
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
      if (!Array.isArray(value)) return `${path} must be an array`;
      if (value.length < (schema.minItems || 0)) return `${path} must not be empty`;
      for (let i = 0; i < value.length; i++) {
        const err = Environment.schemaError(schema.items, value[i], `${path}[${i}]`);
        if (err) return err;
      }
    } else if (schema.type === "string" && typeof value !== "string") return `${path} must be a string`;
    else if (schema.type === "number" && (typeof value !== "number" || !Number.isFinite(value))) return `${path} must be a number`;
    return null;
  }

  normalize(a) {
    const formats = { NL: /^(\d{4})\s*([A-Za-z]{2})$/, GB: /^([A-Za-z]{1,2}\d[A-Za-z\d]?)\s*(\d[A-Za-z]{2})$/, PL: /^(\d{2})-?(\d{3})$/, DE: /^(\d{5})$/ };
    const m = formats[a.country].exec(a.postal_code.trim());
    if (!m) return null;
    const postal = a.country === "NL" ? `${m[1]} ${m[2].toUpperCase()}` : a.country === "GB" ? `${m[1]} ${m[2]}`.toUpperCase() : a.country === "PL" ? `${m[1]}-${m[2]}` : m[1];
    const title = (s) => s.trim().toLowerCase().replace(/(^|[\s-])([a-z])/g, (x, sep, ch) => sep + ch.toUpperCase());
    return { name: a.name.trim(), street: a.street.trim(), postal_code: postal, city: title(a.city), country: a.country };
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "validate_address") {
      const n = this.normalize(args.address);
      if (!n) return { valid: false, error: "POSTAL_CODE_INVALID", message: `That postal code is not valid for ${args.address.country}.` };
      if (JSON.stringify(n) === JSON.stringify(this.address)) this.validated = true;
      return { valid: true, normalized: n };
    }
    if (name === "get_rates") {
      if (!(args.total_weight_kg > 0)) return { error: "INVALID_WEIGHT", message: "total_weight_kg must be positive." };
      if (args.destination.country === this.address.country) this.quoted = true;
      return { quotes: this.quotes.map((q) => ({ carrier: q.carrier, service: q.service, price_eur: q.price_eur, max_parcel_kg: q.max_parcel_kg })) };
    }
    return this.createLabel(args);
  }

  createLabel(args) {
    const fail = (error, message) => {
      this.errors.push(error);
      return { error, message };
    };
    const quote = this.quotes.find((q) => q.carrier.toLowerCase() === args.carrier.trim().toLowerCase() && q.service.toLowerCase() === args.service.trim().toLowerCase());
    if (!quote) return fail("UNKNOWN_SERVICE", "No such carrier service; see get_rates.");
    const to = args.shipment.to;
    const n = this.normalize(to);
    if (!n || JSON.stringify(n) !== JSON.stringify(this.address) || ["name", "street", "postal_code", "city"].some((k) => to[k] !== n[k])) {
      return fail("ADDRESS_NOT_VERIFIED", "The address is not in validated form (or is not the customer's). Run validate_address and use its normalized result.");
    }
    if (quote.carrier === this.outage) return fail("CARRIER_UNAVAILABLE", `${quote.carrier} is not accepting parcels today. Choose another service.`);
    const parcels = args.shipment.parcels;
    const heavy = parcels.findIndex((p) => p.weight_kg > quote.max_parcel_kg);
    if (heavy >= 0) return fail("PARCEL_TOO_HEAVY", `Parcel ${heavy + 1} weighs ${parcels[heavy].weight_kg} kg; ${quote.carrier} ${quote.service} takes at most ${quote.max_parcel_kg} kg per parcel.`);
    if (parcels.some((p) => p.weight_kg <= 0)) return fail("INVALID_WEIGHT", "Parcel weights must be positive.");
    const weight = parcels.reduce((s, p) => s + p.weight_kg, 0);
    if (Math.abs(weight - this.totalTenths / 10) > 0.05) return fail("WEIGHT_MISMATCH", `Parcels add up to ${weight.toFixed(1)} kg but the order weighs ${(this.totalTenths / 10).toFixed(1)} kg.`);
    const insured = args.options?.insurance_eur || 0;
    if (this.insure && insured < this.value) return fail("INSURANCE_REQUIRED", `Orders worth ${this.value} EUR must be insured for their value.`);
    this.label = { carrier: quote.carrier, service: quote.service, parcels: parcels.map((p) => ({ weight_kg: p.weight_kg, dimensions_cm: { ...p.dimensions_cm } })), insured };
    return { label_id: `LBL-${this.totalTenths}${parcels.length}`, tracking: parcels.map((p, i) => `${quote.carrier.slice(0, 2).toUpperCase()}${this.value}${i}`), status: "created" };
  }

  labelOk() {
    const l = this.label;
    if (!l || l.carrier !== this.choice.carrier || l.parcels.length !== this.parcels.length) return false;
    const boxes = l.parcels.every((p) => p.dimensions_cm.length === 40 && p.dimensions_cm.width === 30 && p.dimensions_cm.height === 30);
    const weights = l.parcels.every((p, i) => Math.abs(p.weight_kg - this.parcels[i]) < 0.05);
    const insurance = this.insure ? Math.abs(l.insured - this.value) < 0.01 : l.insured === 0;
    return boxes && weights && insurance;
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.label) {
      out.observation = "The order has shipped.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "The order has shipped." }));
      return out;
    }
    if (!calls.length) {
      out.observation = "Use the carrier tools; the task ends when a label is created.";
      return out;
    }
    out.toolResults = calls.map((c) => ({ id: c.id, content: this.label ? "The order has shipped." : JSON.stringify(this.call(c.name, c.arguments)) }));
    out.observation = "Tool results returned.";
    if (this.label) {
      const ok = this.labelOk();
      out.terminated = true;
      out.reward = ok ? 1 : 0;
      out.observation = ok ? "The label follows the shipping policy." : "A label was bought, but it breaks the shipping policy.";
      out.info = { success: ok, errorsSeen: this.errors.length };
    }
    return out;
  }

  hint() {
    return (
      `Validated address: ${JSON.stringify(this.address)}. ` +
      (this.outage ? `${this.outage} (the cheapest) is down today, so use ` : "Use ") +
      `${this.choice.carrier} ${this.choice.service} (max ${this.choice.max_parcel_kg} kg/parcel): parcels of ${this.parcels.join(" kg, ")} kg in 40x30x30 boxes. ` +
      (this.insure ? `Insure for ${this.value} EUR.` : `Order value ${this.value} EUR: no insurance.`)
    );
  }

  solve() {
    if (!this.validated) return { toolCalls: [{ name: "validate_address", arguments: { address: { ...this.rawAddress } } }] };
    if (!this.quoted) return { toolCalls: [{ name: "get_rates", arguments: { destination: { country: this.address.country }, total_weight_kg: this.totalTenths / 10 } }] };
    const args = {
      carrier: this.choice.carrier,
      service: this.choice.service,
      shipment: { to: { ...this.address }, parcels: this.parcels.map((w) => ({ weight_kg: w, dimensions_cm: { ...this.box } })) },
    };
    if (this.insure) args.options = { insurance_eur: this.value };
    return { toolCalls: [{ name: "create_label", arguments: args }] };
  }
}

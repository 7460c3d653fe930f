// Flight booker: chain search -> traveler lookup -> booking through a mock airline API, or spot
// that the request is missing a detail (answer MISSING) or is out of scope (DECLINE, no tools).
class Environment {
  static meta = {
    name: "flight-booker",
    skill: "API Orchestration",
    description:
      "A customer asks a travel assistant to book flights. Search the route, look up each traveler's id, book the cheapest flight meeting every condition with nested traveler and payment objects, and confirm the booking id; or notice a missing detail or an out-of-scope request.",
    maxTurns: 14,
    tools: [
      {
        type: "function",
        function: {
          name: "search_flights",
          description: "List the flights on one route and date, with times, stops, price and seats left.",
          parameters: {
            type: "object",
            properties: {
              route: {
                type: "object",
                properties: {
                  origin: { type: "string", description: "IATA code, e.g. LIS" },
                  destination: { type: "string", description: "IATA code, e.g. OSL" },
                },
                required: ["origin", "destination"],
              },
              date: { type: "string", description: "YYYY-MM-DD" },
            },
            required: ["route", "date"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "find_traveler",
          description: "Look up a traveler profile by full name; returns the traveler_id needed for booking.",
          parameters: {
            type: "object",
            properties: {
              name: {
                type: "object",
                properties: { first: { type: "string" }, last: { type: "string" } },
                required: ["first", "last"],
              },
            },
            required: ["name"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "book_flight",
          description: "Book seats on a flight for one or more travelers and charge the payment.",
          parameters: {
            type: "object",
            properties: {
              flight_id: { type: "string" },
              travelers: {
                type: "array",
                minItems: 1,
                items: {
                  type: "object",
                  properties: {
                    traveler_id: { type: "string" },
                    seat_preference: { type: "string", enum: ["window", "aisle", "any"] },
                  },
                  required: ["traveler_id", "seat_preference"],
                },
              },
              payment: {
                type: "object",
                properties: {
                  method: { type: "string", enum: ["card", "voucher"] },
                  card_last4: { type: "string", description: "4 digits, for method card" },
                  voucher_code: { type: "string", description: "for method voucher" },
                },
                required: ["method"],
              },
            },
            required: ["flight_id", "travelers", "payment"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "cancel_booking",
          description: "Cancel a booking made in this session.",
          parameters: {
            type: "object",
            properties: { booking_id: { type: "string" } },
            required: ["booking_id"],
          },
        },
      },
    ],
  };

  reset(seed) {
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const shuffle = (xs) => {
      const a = xs.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    };
    const cities = shuffle([["LIS", "Lisbon"], ["OSL", "Oslo"], ["MAD", "Madrid"], ["VIE", "Vienna"], ["DUB", "Dublin"], ["ATH", "Athens"], ["CPH", "Copenhagen"], ["PRG", "Prague"], ["WAW", "Warsaw"]]);
    this.origin = cities[0];
    this.dest = cities[1];
    const month = 1 + Math.floor(Math.random() * 12);
    const day = 1 + Math.floor(Math.random() * 28);
    this.date = `2025-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
    this.dateWords = `${["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"][month - 1]} ${day}, 2025`;

    // Directory: some share a surname, so the lookup needs the full name.
    const firsts = shuffle(["Ana", "Tom", "Mei", "Ravi", "Lena", "Omar", "Ines", "Karl", "Sofia", "Yuki"]);
    const lasts = shuffle(["Silva", "Berg", "Novak", "Okafor", "Haddad", "Larsen", "Moreau"]);
    this.directory = firsts.slice(0, 8).map((first, i) => ({
      traveler_id: `T-${1000 + Math.floor(Math.random() * 9000)}${i}`,
      first,
      last: lasts[i % 5],
      birth_year: 1950 + Math.floor(Math.random() * 55),
    }));
    const party = shuffle(this.directory).slice(0, 1 + Math.floor(Math.random() * 3));
    this.party = party.map((p) => ({ ...p, seat: pick(["window", "aisle", "any"]) }));

    // Flights: distinct prices; a cheap sold-out flight and a cheap one-stop flight are traps.
    const prices = shuffle(Array.from({ length: 30 }, (_, i) => 79 + i * 11)).slice(0, 8);
    const airline = pick(["SK", "TP", "IB", "OS", "FR", "LO"]);
    this.flights = prices.map((price, i) => {
      const depart = 6 * 60 + Math.floor(Math.random() * 12) * 60 + pick([0, 15, 30, 45]);
      const stops = Math.random() < 0.35 ? 1 : 0;
      const duration = 100 + Math.floor(Math.random() * 100) + stops * (60 + Math.floor(Math.random() * 90));
      return { flight_id: `${airline}${100 + i * 37 + Math.floor(Math.random() * 30)}`, depart, arrive: depart + duration, stops, price, seats_left: Math.floor(Math.random() * 9) };
    });
    this.nonstopOnly = Math.random() < 0.7;
    const arrivals = this.flights.map((f) => f.arrive).sort((a, b) => a - b);
    this.arriveBy = Math.min(23 * 60, Math.ceil(arrivals[Math.floor(arrivals.length * 0.75)] / 60) * 60);
    const ok = (f) => (!this.nonstopOnly || f.stops === 0) && f.arrive <= this.arriveBy;
    let candidates = this.flights.filter(ok);
    if (candidates.length === 0) {
      this.flights[0].stops = 0;
      this.flights[0].arrive = Math.min(this.flights[0].arrive, this.arriveBy);
      candidates = [this.flights[0]];
    }
    candidates.sort((a, b) => a.price - b.price);
    // The cheapest qualifying flight is sold out for this party; the next one is the answer.
    candidates[0].seats_left = candidates.length > 1 ? Math.floor(Math.random() * party.length) : party.length + 2;
    for (const f of candidates.slice(1)) f.seats_left = Math.max(f.seats_left, party.length);
    this.target = candidates.length > 1 ? candidates[1] : candidates[0];

    const usesVoucher = Math.random() < 0.35;
    this.payment = usesVoucher
      ? { method: "voucher", voucher_code: `VX-${1000 + Math.floor(Math.random() * 9000)}` }
      : { method: "card", card_last4: String(1000 + Math.floor(Math.random() * 9000)) };

    const roll = Math.random();
    this.kind = roll < 0.62 ? "execute" : roll < 0.82 ? "missing" : "irrelevant";
    this.missingField = pick(["date", "destination", "payment"]);
    this.offTopic = Math.floor(Math.random() * 3);
    this.bookings = [];
    this.searched = false;
    this.lookedUp = [];
    this.toolCallCount = 0;
    this.done = false;
    return { observation: this.intro(), info: { kind: this.kind } };
  }

  clock(minutes) {
    return `${String(Math.floor(minutes / 60) % 24).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
  }

  request() {
    if (this.kind === "irrelevant") {
      const city = this.dest[1];
      return [
        `I land in ${city} on ${this.dateWords}. Can you reserve a rental car at the airport for three days?`,
        `Which hotel near the central station in ${city} has the best breakfast? Please book a double room.`,
        `Please change the name on my ${city} train ticket to my colleague's name.`,
      ][this.offTopic];
    }
    const names = this.party.map((p) => `${p.first} ${p.last}${p.seat === "any" ? "" : ` (${p.seat} seat)`}`).join(", ");
    const when = this.kind === "missing" && this.missingField === "date" ? "as soon as possible" : `on ${this.dateWords}`;
    const where =
      this.kind === "missing" && this.missingField === "destination"
        ? `from ${this.origin[1]} (${this.origin[0]}) to the conference city`
        : `from ${this.origin[1]} (${this.origin[0]}) to ${this.dest[1]} (${this.dest[0]})`;
    const cond = `${this.nonstopOnly ? "nonstop only, " : ""}arriving by ${this.clock(this.arriveBy)}`;
    const pay =
      this.kind === "missing" && this.missingField === "payment"
        ? "I'll tell you how to pay later."
        : this.payment.method === "card"
          ? `Charge my card ending in ${this.payment.card_last4}.`
          : `Use my travel voucher ${this.payment.voucher_code}.`;
    return `Please book the cheapest flight ${where} ${when}, ${cond}, for ${names}. ${pay}`;
  }

  intro() {
    return (
      "You are a travel assistant with a flight-booking API (search_flights, find_traveler, book_flight, cancel_booking).\n" +
      `Customer request: "${this.request()}"\n` +
      "Rules: choose the cheapest flight that meets every condition and still has a seat for each traveler; give each traveler the seat preference the customer stated (any when none was stated). " +
      "When the booking is made, give its booking id as your final answer in \\boxed{}. " +
      "If a detail needed to book is missing, book nothing and answer with the word MISSING, a colon and the missing field (date, destination or payment) in \\boxed{}. " +
      "If the request is not something a flight-booking API can do, call no tools and answer DECLINE in \\boxed{}."
    );
  }

  static schemaError(schema, value, path) {
    if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(", ")}`;
    if (schema.type === "object") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} must be an object`;
      for (const key of schema.required || []) if (!(key in value)) return `${path}.${key} is required`;
      for (const key of Object.keys(value)) {
        const sub = schema.properties?.[key];
        if (!sub) return `${path}.${key} is not a known field`;
        const err = Environment.schemaError(sub, value[key], `${path}.${key}`);
        if (err) return err;
      }
    } else if (schema.type === "array") {
      if (!Array.isArray(value)) return `${path} must be an array`;
      if (value.length < (schema.minItems || 0)) return `${path} needs at least ${schema.minItems} item(s)`;
      for (let i = 0; i < value.length; i++) {
        const err = Environment.schemaError(schema.items, value[i], `${path}[${i}]`);
        if (err) return err;
      }
    } else if (schema.type === "string" && typeof value !== "string") return `${path} must be a string`;
    return null;
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    this.toolCallCount++;
    if (name === "search_flights") {
      const o = args.route.origin.trim().toUpperCase();
      const d = args.route.destination.trim().toUpperCase();
      if (o !== this.origin[0] || d !== this.dest[0] || args.date.trim() !== this.date) return { flights: [], note: "No flights on that route and date." };
      this.searched = true;
      return {
        flights: this.flights.map((f) => ({ flight_id: f.flight_id, depart: this.clock(f.depart), arrive: this.clock(f.arrive), stops: f.stops, price_eur: f.price, seats_left: f.seats_left })),
      };
    }
    if (name === "find_traveler") {
      const norm = (s) => s.trim().toLowerCase();
      const hit = this.directory.find((p) => norm(p.first) === norm(args.name.first) && norm(p.last) === norm(args.name.last));
      if (!hit) return { error: "NOT_FOUND", message: "No traveler with that first and last name." };
      if (!this.lookedUp.includes(hit.traveler_id)) this.lookedUp.push(hit.traveler_id);
      return { traveler_id: hit.traveler_id, first: hit.first, last: hit.last, birth_year: hit.birth_year };
    }
    if (name === "book_flight") {
      const flight = this.flights.find((f) => f.flight_id === args.flight_id.trim().toUpperCase());
      if (!flight) return { error: "UNKNOWN_FLIGHT", message: "No such flight id; search first." };
      const ids = args.travelers.map((t) => t.traveler_id);
      const unknown = ids.find((id) => !this.directory.some((p) => p.traveler_id === id));
      if (unknown) return { error: "UNKNOWN_TRAVELER", message: `No traveler ${unknown}; use find_traveler.` };
      if (new Set(ids).size !== ids.length) return { error: "DUPLICATE_TRAVELER", message: "A traveler appears twice." };
      const p = args.payment;
      if (p.method === "card" && !/^\d{4}$/.test(p.card_last4 || "")) return { error: "PAYMENT_DECLINED", message: "Card payments need card_last4 (4 digits)." };
      if (p.method === "voucher" && !p.voucher_code) return { error: "PAYMENT_DECLINED", message: "Voucher payments need voucher_code." };
      if (flight.seats_left < ids.length) return { error: "SOLD_OUT", message: `Only ${flight.seats_left} seat(s) left on ${flight.flight_id}.` };
      flight.seats_left -= ids.length;
      const booking = { booking_id: `BK-${flight.flight_id}-${this.bookings.length + 1}`, flight_id: flight.flight_id, travelers: args.travelers.map((t) => ({ ...t })), payment: { ...p }, active: true };
      this.bookings.push(booking);
      return { booking_id: booking.booking_id, status: "confirmed", total_eur: flight.price * ids.length };
    }
    const booking = this.bookings.find((b) => b.booking_id === args.booking_id.trim() && b.active);
    if (!booking) return { error: "NOT_FOUND", message: "No active booking with that id." };
    booking.active = false;
    this.flights.find((f) => f.flight_id === booking.flight_id).seats_left += booking.travelers.length;
    return { booking_id: booking.booking_id, status: "cancelled" };
  }

  isTargetBooking(b) {
    if (!b.active || b.flight_id !== this.target.flight_id || b.travelers.length !== this.party.length) return false;
    const travelersOk = this.party.every((p) => b.travelers.some((t) => t.traveler_id === p.traveler_id && t.seat_preference === p.seat));
    const want = this.payment;
    const payOk = b.payment.method === want.method && (want.method === "card" ? b.payment.card_last4 === want.card_last4 : (b.payment.voucher_code || "").trim().toUpperCase() === want.voucher_code);
    return travelersOk && payOk;
  }

  grade(answer) {
    const a = answer.toUpperCase().replace(/\s+/g, " ").trim();
    const active = this.bookings.filter((b) => b.active);
    if (this.kind === "irrelevant") return this.toolCallCount === 0 && a.startsWith("DECLINE");
    if (this.kind === "missing") {
      const m = /^MISSING\s*:?\s*(.*)$/.exec(a);
      return this.bookings.length === 0 && m !== null && m[1].includes(this.missingField.toUpperCase());
    }
    return active.length === 1 && this.isTargetBooking(active[0]) && a === active[0].booking_id;
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const result = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.done) {
      result.observation = "The conversation is over.";
      result.terminated = true;
      if (calls.length) result.toolResults = calls.map((c) => ({ id: c.id, content: "The conversation is over." }));
      return result;
    }
    if (calls.length) {
      result.toolResults = calls.map((c) => ({ id: c.id, content: JSON.stringify(this.call(c.name, c.arguments)) }));
      result.observation = "Tool results returned.";
    }
    const answer = typeof action.answer === "string" ? action.answer.trim() : "";
    if (answer) {
      this.done = true;
      const ok = this.grade(answer);
      result.reward = ok ? 1 : 0;
      result.terminated = true;
      result.observation = ok ? "The customer confirms: all done, thank you!" : "The customer is not satisfied with that outcome.";
      result.info = { success: ok, kind: this.kind };
    } else if (!calls.length) {
      result.observation = "Call a tool, or give your final answer in \\boxed{} (a booking id, MISSING: field, or DECLINE).";
    }
    return result;
  }

  hint() {
    if (this.kind === "irrelevant") return "This request is outside what a flight-booking API does: call no tools and answer DECLINE.";
    if (this.kind === "missing") return `The request does not say the ${this.missingField}. Book nothing and answer MISSING: ${this.missingField}.`;
    const cheapest = this.flights.filter((f) => f !== this.target && f.price < this.target.price).map((f) => f.flight_id);
    return (
      `Book ${this.target.flight_id} (${this.clock(this.target.depart)}-${this.clock(this.target.arrive)}, ${this.target.price} EUR); cheaper flights (${cheapest.join(", ") || "none"}) break a condition or lack seats. ` +
      `Travelers: ${this.party.map((p) => `${p.first} ${p.last} = ${p.traveler_id} (${p.seat})`).join("; ")}. Payment: ${JSON.stringify(this.payment)}. Then answer with the booking id.`
    );
  }

  solve() {
    if (this.kind === "irrelevant") return { text: "This is outside what I can do here. \\boxed{DECLINE}" };
    if (this.kind === "missing") return { text: `I need one more detail. \\boxed{MISSING: ${this.missingField}}` };
    const wrong = this.bookings.find((b) => b.active && !this.isTargetBooking(b));
    if (wrong) return { toolCalls: [{ name: "cancel_booking", arguments: { booking_id: wrong.booking_id } }] };
    if (!this.searched) {
      return { toolCalls: [{ name: "search_flights", arguments: { route: { origin: this.origin[0], destination: this.dest[0] }, date: this.date } }] };
    }
    const unknown = this.party.find((p) => !this.lookedUp.includes(p.traveler_id));
    if (unknown) return { toolCalls: [{ name: "find_traveler", arguments: { name: { first: unknown.first, last: unknown.last } } }] };
    const good = this.bookings.find((b) => this.isTargetBooking(b));
    if (!good) {
      return {
        toolCalls: [
          {
            name: "book_flight",
            arguments: {
              flight_id: this.target.flight_id,
              travelers: this.party.map((p) => ({ traveler_id: p.traveler_id, seat_preference: p.seat })),
              payment: { ...this.payment },
            },
          },
        ],
      };
    }
    return { text: `Booked. \\boxed{${good.booking_id}}` };
  }
}

// Email client: read-then-write. Find the right message (newest genuine one, possibly archived,
// never the spam look-alike), pull one fact out of it and email it to a contact; or say that the
// recipient is missing.
class Environment {
  static meta = {
    name: "email-client",
    skill: "Data Retrieval",
    description:
      "A user asks their email assistant to forward one fact (tracking number, amount due, room, discount code) from the newest genuine message of a sender to a colleague. Search across folders, skip older copies and spam look-alikes, look up the contact and send one email with nested recipients; or answer that the recipient is missing.",
    maxTurns: 12,
    tools: [
      {
        type: "function",
        function: {
          name: "search_emails",
          description: "Search messages, newest first. Matches sender name or address and subject text; folder defaults to inbox.",
          parameters: {
            type: "object",
            properties: {
              query: {
                type: "object",
                properties: {
                  from: { type: "string" },
                  subject_contains: { type: "string" },
                  folder: { type: "string", enum: ["inbox", "archive", "spam", "all"] },
                },
              },
              limit: { type: "integer", minimum: 1, maximum: 20 },
            },
            required: ["query"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "read_email",
          description: "Read one message in full.",
          parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        },
      },
      {
        type: "function",
        function: {
          name: "lookup_contact",
          description: "Find a contact's email address by name.",
          parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      },
      {
        type: "function",
        function: {
          name: "send_email",
          description: "Send a new email. Sending cannot be undone.",
          parameters: {
            type: "object",
            properties: {
              message: {
                type: "object",
                properties: {
                  to: {
                    type: "array",
                    minItems: 1,
                    items: {
                      type: "object",
                      properties: { name: { type: "string" }, email: { type: "string" } },
                      required: ["email"],
                    },
                  },
                  cc: {
                    type: "array",
                    items: {
                      type: "object",
                      properties: { name: { type: "string" }, email: { type: "string" } },
                      required: ["email"],
                    },
                  },
                  subject: { type: "string" },
                  body: { type: "string" },
                },
                required: ["to", "subject", "body"],
              },
            },
            required: ["message"],
          },
        },
      },
    ],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const letters = (n) => Array.from({ length: n }, () => "ABCDEFGHJKMNPQRSTUVWXYZ"[rint(0, 22)]).join("");
    const kinds = {
      shipping: {
        sender: { name: "Parcelo Delivery", email: "notify@parcelo.com" },
        fake: { name: "Parcelo Delivery", email: "notify@parcel0-track.net" },
        what: "tracking number",
        thing: "latest shipping notice from Parcelo",
        fact: () => `PX${rint(100000000, 999999999)}`,
        subject: () => pick(["Your parcel is on its way", "Shipment update", "Your order has shipped"]),
        body: (v) => `Hello,\nyour order #${rint(10000, 99999)} has left our depot.\nTracking number: ${v}\nExpected delivery in ${rint(2, 5)} days.`,
      },
      invoice: {
        sender: { name: "Lumen Energy Billing", email: "billing@lumen-energy.com" },
        fake: { name: "Lumen Energy Billing", email: "billing@lumen-energy-pay.co" },
        what: "amount due",
        thing: "latest invoice from Lumen Energy",
        fact: () => `${rint(40, 480)}.${String(rint(0, 99)).padStart(2, "0")}`,
        subject: () => `Invoice LE-${rint(1000, 9999)}`,
        body: (v) => `Dear customer,\nplease find your invoice attached.\nAmount due: EUR ${v}\nPayment is due within 14 days.`,
      },
      room: {
        sender: { name: "Priya Natarajan", email: "priya.natarajan@acme.io" },
        fake: { name: "Priya Natarajan", email: "priya.natarajan@acme-io.mail.ru" },
        what: "room",
        thing: "latest room change for the design review from Priya Natarajan",
        fact: () => `${pick(["A", "B", "C"])}-${rint(100, 499)}`,
        subject: () => "Room change: design review",
        body: (v) => `Hi all,\nthe design review moves to room ${v} (same time).\nSee you there,\nPriya`,
      },
      promo: {
        sender: { name: "Papyrus Office Supply", email: "deals@papyrus-office.com" },
        fake: { name: "Papyrus Office Supply", email: "deals@papyrus-office-rewards.biz" },
        what: "discount code",
        thing: "latest partner discount code from Papyrus Office Supply",
        fact: () => `${pick(["SPRING", "OFFICE", "PARTNER"])}-${letters(4)}`,
        subject: () => "Your partner discount code",
        body: (v) => `Thanks for being a partner!\nUse code ${v} for 15% off your next order.\nValid for 30 days.`,
      },
    };
    const kindName = pick(Object.keys(kinds));
    const kind = kinds[kindName];
    this.kindName = kindName;
    this.what = kind.what;
    this.thing = kind.thing;

    // Messages carry increasing timestamps; a lower index is older.
    const msgs = [];
    const fillers = [
      [{ name: "HR Team", email: "hr@acme.io" }, "Holiday calendar 2025", "The updated holiday calendar is on the intranet."],
      [{ name: "Marco Bianchi", email: "marco.bianchi@acme.io" }, "Lunch on Friday?", "Want to try the new ramen place?"],
      [{ name: "IT Service Desk", email: "it@acme.io" }, "Password expiry notice", "Your password expires in 7 days."],
      [{ name: "Newsletter", email: "news@techweekly.com" }, "This week in tech", "Ten stories you missed."],
      [{ name: "Facilities", email: "facilities@acme.io" }, "Fire drill Thursday", "Please leave by the nearest exit."],
      [{ name: "Olga Petrova", email: "olga.petrova@acme.io" }, "Budget draft", "Draft numbers attached, comments welcome."],
    ];
    // Four distinct values, none inside another (the body check looks for substrings).
    const values = [];
    while (values.length < 4) {
      const v = kind.fact();
      if (!values.some((w) => w.includes(v) || v.includes(w))) values.push(v);
    }
    const genuineValues = values.slice(0, 3);
    const fakeValue = values[3];
    const archivedLatest = Math.random() < 0.4;
    const plan = [
      ["genuine", 0, "archive"],
      ["filler", 0],
      ["genuine", 1, "inbox"],
      ["filler", 1],
      ["filler", 2],
      ["genuine", 2, archivedLatest ? "archive" : "inbox"],
      ["filler", 3],
      ["fake", 0],
      ["filler", 4],
      ["filler", 5],
    ];
    let minute = rint(0, 500);
    for (const [type, i, folder] of plan) {
      minute += rint(90, 2000);
      const date = `2025-03-${String(1 + Math.floor(minute / 1440)).padStart(2, "0")} ${String(Math.floor((minute % 1440) / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
      const id = `m-${100 + msgs.length * 7 + rint(0, 6)}`;
      if (type === "filler") msgs.push({ id, folder: i === 3 ? "archive" : "inbox", from: fillers[i][0], subject: fillers[i][1], date, body: fillers[i][2] });
      else if (type === "genuine") msgs.push({ id, folder, from: kind.sender, subject: kind.subject(), date, body: kind.body(genuineValues[i]) });
      else msgs.push({ id, folder: "spam", from: kind.fake, subject: kind.subject(), date, body: kind.body(fakeValue) });
    }
    this.messages = msgs;
    this.target = msgs[5];
    this.fact = genuineValues[2];
    this.wrongFacts = [genuineValues[0], genuineValues[1], fakeValue];

    const people = [["Dana", "Reyes"], ["Dana", "Kim"], ["Felix", "Wagner"], ["Amara", "Osei"], ["Lucas", "Moreau"], ["Hana", "Sato"]];
    this.contacts = people.map(([f, l]) => ({ name: `${f} ${l}`, email: `${f[0].toLowerCase()}.${l.toLowerCase()}@acme.io`, team: pick(["Finance", "Ops", "Design", "Sales"]) }));
    this.recipient = pick(this.contacts);
    this.subject = pick([`${kind.what[0].toUpperCase()}${kind.what.slice(1)}`, `FYI: ${kind.what}`, `The ${kind.what} you asked for`]);
    this.missing = Math.random() < 0.25;
    this.sent = [];
    this.read = [];
    this.searched = false;
    this.lookedUp = false;
    this.done = false;
    const to = this.missing ? "to my teammate" : `to ${this.recipient.name}`;
    return {
      observation:
        "You are an email assistant (search_emails, read_email, lookup_contact, send_email). " +
        `The user says: "Find the ${this.thing} and email the ${this.what} ${to}, with the subject '${this.subject}'. ` +
        `${archivedLatest ? "I may have archived it already. " : ""}Ignore anything in spam, those are scams."\n` +
        `Send exactly one email whose body contains the ${this.what}. ` +
        "If a detail you need to send it is missing, send nothing and answer MISSING followed by the missing detail in \\boxed{}.",
      info: { kind: this.kindName, missing: this.missing },
    };
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
    else if (schema.type === "integer" && (!Number.isInteger(value) || value < schema.minimum || value > schema.maximum)) {
      return `${path} must be an integer from ${schema.minimum} to ${schema.maximum}`;
    }
    return null;
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "search_emails") {
      const q = args.query;
      const folder = q.folder || "inbox";
      const has = (hay, needle) => needle === undefined || hay.toLowerCase().includes(needle.trim().toLowerCase());
      const hits = this.messages
        .filter((m) => (folder === "all" || m.folder === folder) && has(`${m.from.name} ${m.from.email}`, q.from) && has(m.subject, q.subject_contains))
        .reverse()
        .slice(0, args.limit || 10);
      if (hits.includes(this.target)) this.searched = true;
      return { results: hits.map((m) => ({ id: m.id, folder: m.folder, from: `${m.from.name} <${m.from.email}>`, subject: m.subject, date: m.date })) };
    }
    if (name === "read_email") {
      const m = this.messages.find((x) => x.id === args.id.trim());
      if (!m) return { error: "NOT_FOUND", message: "No message with that id." };
      if (!this.read.includes(m.id)) this.read.push(m.id);
      return { id: m.id, folder: m.folder, from: `${m.from.name} <${m.from.email}>`, subject: m.subject, date: m.date, body: m.body };
    }
    if (name === "lookup_contact") {
      const q = args.name.trim().toLowerCase();
      const hits = this.contacts.filter((c) => q !== "" && c.name.toLowerCase().includes(q));
      if (hits.includes(this.recipient)) this.lookedUp = true;
      return hits.length ? { contacts: hits } : { error: "NOT_FOUND", message: "No contact matches that name." };
    }
    const msg = args.message;
    this.sent.push({ to: msg.to.map((r) => r.email.trim().toLowerCase()), cc: (msg.cc || []).map((r) => r.email.trim().toLowerCase()), subject: msg.subject.trim(), body: msg.body });
    return { status: "sent", message_id: `out-${this.sent.length}` };
  }

  sentOk() {
    if (this.sent.length !== 1) return false;
    const s = this.sent[0];
    return (
      s.to.length === 1 &&
      s.to[0] === this.recipient.email &&
      s.cc.length === 0 &&
      s.subject.toLowerCase() === this.subject.toLowerCase() &&
      s.body.includes(this.fact) &&
      !this.wrongFacts.some((w) => s.body.includes(w))
    );
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.done) {
      out.observation = "The task is over.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "The task is over." }));
      return out;
    }
    if (calls.length) {
      out.toolResults = calls.map((c) => ({ id: c.id, content: JSON.stringify(this.call(c.name, c.arguments)) }));
      out.observation = "Tool results returned.";
    }
    const answer = typeof action.answer === "string" ? action.answer.trim() : "";
    if (this.sent.length > 0 || answer) {
      this.done = true;
      const ok = this.missing
        ? this.sent.length === 0 && /^MISSING\b.*\b(RECIPIENT|RECIPIENTS|ADDRESSEE|TEAMMATE|WHO|NAME|CONTACT|EMAIL ADDRESS)\b/.test(answer.toUpperCase())
        : this.sentOk();
      out.reward = ok ? 1 : 0;
      out.terminated = true;
      out.observation = ok ? "The user thanks you." : this.sent.length ? "The email went out, but it is not what the user asked for." : "The user expected a different outcome.";
      out.info = { success: ok };
    } else if (!calls.length) {
      out.observation = "Use the email tools, or answer MISSING with the missing detail in \\boxed{}.";
    }
    return out;
  }

  hint() {
    if (this.missing) return "The user never says who should receive the email (only 'my teammate', and there are several): send nothing and answer MISSING: recipient.";
    return (
      `The right message is ${this.target.id} (${this.target.folder}, ${this.target.date}); older ones and the spam copy from ${this.messages[7].from.email} carry other values. ` +
      `The ${this.what} is ${this.fact}. Send it to ${this.recipient.name} <${this.recipient.email}> only, subject '${this.subject}'.`
    );
  }

  solve() {
    if (this.missing) return { text: "Who should receive it? \\boxed{MISSING: recipient}" };
    if (!this.searched) return { toolCalls: [{ name: "search_emails", arguments: { query: { from: this.target.from.name, folder: "all" } } }] };
    if (!this.read.includes(this.target.id)) return { toolCalls: [{ name: "read_email", arguments: { id: this.target.id } }] };
    if (!this.lookedUp) return { toolCalls: [{ name: "lookup_contact", arguments: { name: this.recipient.name } }] };
    return {
      toolCalls: [
        {
          name: "send_email",
          arguments: {
            message: {
              to: [{ name: this.recipient.name, email: this.recipient.email }],
              subject: this.subject,
              body: `Hi ${this.recipient.name.split(" ")[0]},\nthe ${this.what} is ${this.fact}.\nBest regards`,
            },
          },
        },
      ],
    };
  }
}

// Support triage: work through a help-desk queue with nine tools, choosing per ticket which ones
// apply (route, prioritise by customer plan, escalate outages, merge duplicates, close spam).
// Long-horizon: a full queue takes about twenty calls.
class Environment {
  static meta = {
    name: "support-triage",
    skill: "Tool Selection",
    description:
      "Triage a queue of six support tickets under a written policy: read each ticket and its customer's plan, then pick the right tool per case (assign with a nested assignee, set priority, escalate outages, merge duplicates into the oldest ticket, close spam) and finish. About twenty tool calls.",
    maxTurns: 36,
    tools: [
      {
        type: "function",
        function: {
          name: "list_tickets",
          description: "List tickets (id, subject, customer_id, created), oldest first.",
          parameters: { type: "object", properties: { filter: { type: "object", properties: { status: { type: "string", enum: ["open", "closed", "merged"] } } } } },
        },
      },
      { type: "function", function: { name: "get_ticket", description: "Full ticket: body, status, team, priority.", parameters: { type: "object", properties: { ticket_id: { type: "string" } }, required: ["ticket_id"] } } },
      { type: "function", function: { name: "get_customer", description: "A customer's name and plan.", parameters: { type: "object", properties: { customer_id: { type: "string" } }, required: ["customer_id"] } } },
      {
        type: "function",
        function: {
          name: "assign_ticket",
          description: "Route a ticket to a team.",
          parameters: {
            type: "object",
            properties: {
              ticket_id: { type: "string" },
              assignee: { type: "object", properties: { team: { type: "string", enum: ["billing", "technical", "security"] } }, required: ["team"] },
            },
            required: ["ticket_id", "assignee"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "set_priority",
          description: "Set a ticket's priority.",
          parameters: {
            type: "object",
            properties: { ticket_id: { type: "string" }, priority: { type: "string", enum: ["low", "normal", "high", "urgent"] } },
            required: ["ticket_id", "priority"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "escalate",
          description: "Escalate a ticket to on-call engineering.",
          parameters: {
            type: "object",
            properties: {
              ticket_id: { type: "string" },
              escalation: {
                type: "object",
                properties: { level: { type: "integer", enum: [1, 2] }, reason: { type: "string", enum: ["outage", "security_incident", "vip"] } },
                required: ["level", "reason"],
              },
            },
            required: ["ticket_id", "escalation"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "merge_tickets",
          description: "Merge duplicate tickets into a primary ticket; duplicates become status merged.",
          parameters: {
            type: "object",
            properties: { primary_id: { type: "string" }, duplicate_ids: { type: "array", minItems: 1, items: { type: "string" } } },
            required: ["primary_id", "duplicate_ids"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "close_ticket",
          description: "Close a ticket with a resolution.",
          parameters: {
            type: "object",
            properties: {
              ticket_id: { type: "string" },
              resolution: {
                type: "object",
                properties: { code: { type: "string", enum: ["spam", "resolved", "wont_fix"] }, note: { type: "string" } },
                required: ["code"],
              },
            },
            required: ["ticket_id", "resolution"],
          },
        },
      },
      { type: "function", function: { name: "finish", description: "Declare the queue triaged. Ends the task.", parameters: { type: "object", properties: {} } } },
    ],
  };

  static TEXTS = {
    billing: [
      ["Charged twice", "I was charged twice for my subscription this month. Please refund one of the charges."],
      ["Invoice question", "The invoice for March shows the wrong VAT number. Can you reissue it?"],
      ["Help", "My card was billed after I cancelled the plan. I want a refund."],
    ],
    technical: [
      ["Export broken", "The CSV export button returns error 500 since yesterday's update."],
      ["App crash", "The desktop app crashes every time I upload a file larger than 10 MB."],
      ["Question", "Webhooks stopped firing for our project; the delivery log shows timeouts."],
    ],
    security: [
      ["Cannot log in", "The 2FA code never arrives, so I am locked out of my account."],
      ["Urgent!!", "Someone changed my password and email address. I think my account was hacked."],
      ["Help", "I lost the phone with my authenticator app and need to reset two-factor login."],
    ],
    outage: [
      ["Everything is down", "Nothing loads for anyone in our company: the whole service seems down. Is there an outage?"],
      ["Urgent!!", "All our users get a blank page and the API returns 503 for every request. Full outage on your side?"],
    ],
    spam: [
      ["Boost your ranking", "Get 10,000 backlinks today!!! Best SEO prices, visit cheap-seo-deals.biz now."],
      ["Partnership", "Dear sir, we sell crypto mining rigs with 900% returns, reply to order now."],
    ],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const shuffle = (xs) => {
      const a = xs.slice();
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    };
    const names = shuffle(["Acme Corp", "Birch & Co", "Cobalt Labs", "Dune Media", "Ember Foods", "Fjord Travel", "Granite Bank"]);
    this.customers = names.slice(0, 5).map((name, i) => ({ customer_id: `C-${rint(100, 999)}${i}`, name, plan: pick(["free", "pro", "enterprise"]) }));
    const topics = shuffle(["billing", "technical", "security"]);
    // Cases: three routed tickets (one may be an outage), one duplicate pair, one spam.
    const cases = [];
    const withOutage = Math.random() < 0.5;
    topics.forEach((topic, i) => {
      cases.push({ topic: withOutage && i === 0 ? "outage" : topic, customer: this.customers[i] });
    });
    const dupTopic = pick(["billing", "technical", "security"]);
    cases.push({ topic: dupTopic, customer: this.customers[3], pair: true });
    cases.push({ topic: "spam", customer: { customer_id: `C-${rint(100, 999)}9`, name: "unknown", plan: "free" } });
    this.customers.push(cases[cases.length - 1].customer);
    const order = shuffle(cases);
    this.tickets = [];
    let id = rint(2000, 8000);
    const push = (c, text, dupOf) => {
      id += rint(1, 9);
      this.tickets.push({ ticket_id: `TCK-${id}`, customer_id: c.customer.customer_id, subject: text[0], body: text[1], status: "open", team: null, priority: "normal", escalation: 0, merged_into: null, topic: c.topic, dupOf });
    };
    for (const c of order) {
      const text = pick(Environment.TEXTS[c.topic]);
      push(c, text, null);
      if (c.pair) c.text = text;
    }
    // The follow-up duplicate arrives after everything else.
    const pair = cases.find((c) => c.pair);
    const primary = this.tickets.find((t) => t.customer_id === pair.customer.customer_id);
    push(pair, [`Re: ${pair.text[0]}`, `Following up on my earlier ticket, still not solved: ${pair.text[1]}`], primary.ticket_id);
    this.expected = this.tickets.map((t) => this.expectation(t));
    this.readTickets = [];
    this.readCustomers = [];
    this.listed = false;
    this.finished = false;
    return {
      observation:
        "You triage the support queue (tools: list_tickets, get_ticket, get_customer, assign_ticket, set_priority, escalate, merge_tickets, close_ticket, finish). Policy:\n" +
        "1. Spam or advertising: close it with resolution code spam and do nothing else.\n" +
        "2. A ticket repeating an older open ticket of the same customer: merge it into the older ticket (the older one is the primary) and do nothing else with it.\n" +
        "3. Route every other ticket: charges, invoices and refunds to billing; errors, crashes and outages to technical; logins, passwords, 2FA and hacked accounts to security.\n" +
        "4. Priority by the customer's plan: enterprise high, pro normal, free low. Exception: a service-wide outage is urgent and is escalated at level 2 with reason outage.\n" +
        "Tickets start at priority normal. Call finish when the whole queue is triaged.",
      info: { tickets: this.tickets.length },
    };
  }

  expectation(t) {
    const plan = this.customers.find((c) => c.customer_id === t.customer_id).plan;
    if (t.topic === "spam") return { status: "closed", resolution: "spam", team: null, priority: "normal", escalation: 0, merged_into: null };
    if (t.dupOf) return { status: "merged", resolution: null, team: null, priority: "normal", escalation: 0, merged_into: t.dupOf };
    const team = t.topic === "outage" ? "technical" : t.topic;
    const priority = t.topic === "outage" ? "urgent" : { enterprise: "high", pro: "normal", free: "low" }[plan];
    return { status: "open", resolution: null, team, priority, escalation: t.topic === "outage" ? 2 : 0, merged_into: null };
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
    return null;
  }

  view(t) {
    return { ticket_id: t.ticket_id, customer_id: t.customer_id, subject: t.subject, body: t.body, status: t.status, team: t.team, priority: t.priority, escalation_level: t.escalation, merged_into: t.merged_into };
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "list_tickets") {
      this.listed = true;
      const status = args.filter?.status;
      return { tickets: this.tickets.filter((t) => !status || t.status === status).map((t) => ({ ticket_id: t.ticket_id, subject: t.subject, customer_id: t.customer_id, status: t.status })) };
    }
    if (name === "finish") {
      this.finished = true;
      return { status: "finished" };
    }
    if (name === "get_customer") {
      const c = this.customers.find((x) => x.customer_id === args.customer_id.trim());
      if (!c) return { error: "NOT_FOUND", message: "No such customer." };
      if (!this.readCustomers.includes(c.customer_id)) this.readCustomers.push(c.customer_id);
      return { ...c };
    }
    const find = (id) => this.tickets.find((x) => x.ticket_id === String(id).trim().toUpperCase());
    if (name === "merge_tickets") {
      const primary = find(args.primary_id);
      const dups = args.duplicate_ids.map(find);
      if (!primary || dups.some((d) => !d)) return { error: "NOT_FOUND", message: "Unknown ticket id." };
      if (dups.includes(primary)) return { error: "INVALID_MERGE", message: "A ticket cannot be merged into itself." };
      if (primary.status !== "open" || dups.some((d) => d.status !== "open")) return { error: "NOT_OPEN", message: "Only open tickets can be merged." };
      for (const d of dups) Object.assign(d, { status: "merged", merged_into: primary.ticket_id });
      return { primary_id: primary.ticket_id, merged: dups.map((d) => d.ticket_id) };
    }
    const t = find(args.ticket_id);
    if (!t) return { error: "NOT_FOUND", message: "No ticket with that id." };
    if (name === "get_ticket") {
      if (!this.readTickets.includes(t.ticket_id)) this.readTickets.push(t.ticket_id);
      return this.view(t);
    }
    if (t.status !== "open") return { error: "NOT_OPEN", message: `Ticket ${t.ticket_id} is ${t.status}.` };
    if (name === "assign_ticket") t.team = args.assignee.team;
    else if (name === "set_priority") t.priority = args.priority;
    else if (name === "escalate") {
      t.escalation = args.escalation.level;
      t.escalationReason = args.escalation.reason;
    } else {
      t.status = "closed";
      t.resolution = args.resolution.code;
    }
    return this.view(t);
  }

  actual(t) {
    return { status: t.status, resolution: t.status === "closed" ? t.resolution : null, team: t.team, priority: t.priority, escalation: t.escalation && t.escalationReason === "outage" ? t.escalation : t.escalation ? -1 : 0, merged_into: t.merged_into };
  }

  correctCount() {
    return this.tickets.filter((t, i) => JSON.stringify(this.actual(t)) === JSON.stringify(this.expected[i])).length;
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.finished) {
      out.observation = "The queue was already submitted.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "Finished already." }));
      return out;
    }
    if (!calls.length) {
      out.observation = "Work the queue with the tools; call finish when done.";
      return out;
    }
    out.toolResults = calls.map((c) => ({ id: c.id, content: this.finished ? "Finished already." : JSON.stringify(this.call(c.name, c.arguments)) }));
    out.observation = "Tool results returned.";
    if (this.finished) {
      const right = this.correctCount();
      const all = right === this.tickets.length;
      out.terminated = true;
      // Partial credit for a partly triaged queue stays well below success.
      out.reward = all ? 1 : Math.round((0.5 * right) / this.tickets.length * 100) / 100;
      out.observation = all ? "The queue is triaged correctly." : `${this.tickets.length - right} ticket(s) were not handled by the policy.`;
      out.info = { success: all, correctTickets: right };
    }
    return out;
  }

  hint() {
    return this.tickets
      .map((t, i) => {
        const e = this.expected[i];
        if (e.status === "closed") return `${t.ticket_id}: spam, close`;
        if (e.status === "merged") return `${t.ticket_id}: duplicate, merge into ${e.merged_into}`;
        return `${t.ticket_id}: ${e.team}, ${e.priority}${e.escalation ? ", escalate level 2 (outage)" : ""}`;
      })
      .join("; ");
  }

  solve() {
    if (!this.listed) return { toolCalls: [{ name: "list_tickets", arguments: {} }] };
    for (let i = 0; i < this.tickets.length; i++) {
      const t = this.tickets[i];
      const e = this.expected[i];
      const id = t.ticket_id;
      if (!this.readTickets.includes(id)) return { toolCalls: [{ name: "get_ticket", arguments: { ticket_id: id } }] };
      if (e.status === "closed" && t.status === "open") return { toolCalls: [{ name: "close_ticket", arguments: { ticket_id: id, resolution: { code: "spam" } } }] };
      if (e.status === "merged" && t.status === "open") return { toolCalls: [{ name: "merge_tickets", arguments: { primary_id: e.merged_into, duplicate_ids: [id] } }] };
      if (e.status !== "open") continue;
      if (!this.readCustomers.includes(t.customer_id)) return { toolCalls: [{ name: "get_customer", arguments: { customer_id: t.customer_id } }] };
      if (t.team !== e.team) return { toolCalls: [{ name: "assign_ticket", arguments: { ticket_id: id, assignee: { team: e.team } } }] };
      if (t.priority !== e.priority) return { toolCalls: [{ name: "set_priority", arguments: { ticket_id: id, priority: e.priority } }] };
      if (e.escalation && (t.escalation !== 2 || t.escalationReason !== "outage")) {
        return { toolCalls: [{ name: "escalate", arguments: { ticket_id: id, escalation: { level: 2, reason: "outage" } } }] };
      }
    }
    return { toolCalls: [{ name: "finish", arguments: {} }] };
  }
}

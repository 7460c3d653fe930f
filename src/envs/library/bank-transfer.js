// Bank transfer: make one exact payment through a banking API that fails on purpose (expiring
// tokens, rate limits, insufficient funds, currency mismatch); the agent must read the error
// codes and recover without ever sending the money twice.
class Environment {
  static meta = {
    name: "bank-transfer",
    skill: "Error Recovery",
    description:
      "Pay a named payee an exact amount with a reference through a mock banking API whose session tokens expire, whose transfer endpoint rate-limits, and whose preferred account may lack funds. Recover from each error code and confirm the transfer id.",
    maxTurns: 16,
    tools: [
      {
        type: "function",
        function: {
          name: "login",
          description: "Start a session. Returns a token for the other calls.",
          parameters: {
            type: "object",
            properties: {
              credentials: {
                type: "object",
                properties: { username: { type: "string" }, pin: { type: "string" } },
                required: ["username", "pin"],
              },
            },
            required: ["credentials"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "list_accounts",
          description: "List your accounts with currency and available balance.",
          parameters: { type: "object", properties: { token: { type: "string" } }, required: ["token"] },
        },
      },
      {
        type: "function",
        function: {
          name: "find_payee",
          description: "Search saved payees by name; returns their IBAN and registered name.",
          parameters: {
            type: "object",
            properties: {
              token: { type: "string" },
              query: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
            },
            required: ["token", "query"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "transfer",
          description: "Send money from one of your accounts to a payee. Money sent cannot be recalled.",
          parameters: {
            type: "object",
            properties: {
              token: { type: "string" },
              from_account_id: { type: "string" },
              to: {
                type: "object",
                properties: { iban: { type: "string" }, name: { type: "string" } },
                required: ["iban", "name"],
              },
              amount: {
                type: "object",
                properties: { value: { type: "number" }, currency: { type: "string", enum: ["EUR", "USD", "GBP"] } },
                required: ["value", "currency"],
              },
              reference: { type: "string" },
            },
            required: ["token", "from_account_id", "to", "amount", "reference"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "wait",
          description: "Pause before retrying (e.g. after a rate limit).",
          parameters: {
            type: "object",
            properties: { seconds: { type: "integer", minimum: 1, maximum: 60 } },
            required: ["seconds"],
          },
        },
      },
    ],
  };

  reset(seed) {
    const rint = (lo, hi) => lo + Math.floor(Math.random() * (hi - lo + 1));
    const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
    const iban = (cc) => `${cc}${rint(10, 99)}${Array.from({ length: 16 }, () => rint(0, 9)).join("")}`;
    this.username = pick(["jdoe", "mkeller", "asantos", "lnguyen", "pkowalski"]) + rint(10, 99);
    this.pin = String(rint(1000, 9999));
    const amount = Math.round((rint(40, 900) + rint(0, 99) / 100) * 100) / 100;
    this.amount = amount;
    this.fundsShort = Math.random() < 0.5;
    const id = () => `ACC-${rint(100000, 999999)}`;
    this.accounts = [
      { account_id: id(), type: "checking", currency: "EUR", balance: this.fundsShort ? Math.round(amount * rint(30, 90)) / 100 : Math.round(amount * rint(130, 400)) / 100 },
      { account_id: id(), type: "savings", currency: "EUR", balance: Math.round(amount * rint(200, 600)) / 100 },
      { account_id: id(), type: "travel", currency: "USD", balance: Math.round(amount * rint(300, 900)) / 100 },
    ];
    this.source = this.fundsShort ? this.accounts[1] : this.accounts[0];

    const surname = pick(["Keller", "Moreau", "Rossi", "Novak", "Jensen"]);
    const firsts = ["Marta", "Jonas", "Elena", "Pieter", "Sara", "Luca"];
    for (let i = firsts.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [firsts[i], firsts[j]] = [firsts[j], firsts[i]];
    }
    const [a, b, c] = firsts;
    this.payees = [
      { name: `${a} ${surname}`, iban: iban("DE"), bank: "Nordbank" },
      { name: `${b} ${surname}`, iban: iban("DE"), bank: "Nordbank" },
      { name: `${a} ${surname}-Berg`, iban: iban("NL"), bank: "Polder Bank" },
      { name: `${c} ${pick(["Ortiz", "Haas", "Lind"])}`, iban: iban("FR"), bank: "Banque Cerise" },
    ];
    this.payee = this.payees[0];
    this.reference = `${pick(["INV", "RENT", "ORDER", "FEE"])}-${rint(1000, 9999)}`;

    this.tokenLimit = rint(2, 4);
    this.rateLimitFirst = Math.random() < 0.75;
    this.retryAfter = rint(2, 9);
    this.token = null;
    this.tokenUses = 0;
    this.oldTokens = [];
    this.rateLimited = false;
    this.transferAttempts = 0;
    this.transfers = [];
    this.knowsAccounts = false;
    this.knowsPayee = false;
    this.done = false;
    return {
      observation:
        "You are a banking assistant with API tools (login, list_accounts, find_payee, transfer, wait).\n" +
        `Customer: "Please pay ${this.payee.name} ${amount.toFixed(2)} EUR with the reference ${this.reference}. ` +
        "Take it from my EUR checking account; if that does not have enough money, use my other EUR account instead. " +
        `My online-banking username is ${this.username} and my PIN is ${this.pin}."\n` +
        "Tool results may be errors with a code; handle them and retry. Send the money exactly once. " +
        "When the transfer has gone through, give its transfer id as your final answer in \\boxed{}.",
      info: { fundsShort: this.fundsShort, tokenLimit: this.tokenLimit, rateLimitFirst: this.rateLimitFirst },
    };
  }

  static schemaError(schema, value, path) {
    if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(", ")}`;
    switch (schema.type) {
      case "object": {
        if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} must be an object`;
        for (const key of schema.required || []) if (!(key in value)) return `${path}.${key} is required`;
        for (const key of Object.keys(value)) {
          const sub = schema.properties?.[key];
          if (!sub) return `${path}.${key} is not a known field`;
          const err = Environment.schemaError(sub, value[key], `${path}.${key}`);
          if (err) return err;
        }
        return null;
      }
      case "string":
        return typeof value === "string" ? null : `${path} must be a string`;
      case "number":
        return typeof value === "number" && Number.isFinite(value) ? null : `${path} must be a number`;
      case "integer":
        if (!Number.isInteger(value)) return `${path} must be an integer`;
        if (value < schema.minimum || value > schema.maximum) return `${path} must be from ${schema.minimum} to ${schema.maximum}`;
        return null;
      default:
        return null;
    }
  }

  // Every call that needs a session goes through here: expired and unknown tokens fail.
  session(token) {
    if (this.token !== null && token === this.token) {
      if (this.tokenUses >= this.tokenLimit) {
        this.oldTokens.push(this.token);
        this.token = null;
        return { error: "TOKEN_EXPIRED", message: "The session token has expired. Log in again." };
      }
      this.tokenUses++;
      return null;
    }
    if (this.oldTokens.includes(token)) return { error: "TOKEN_EXPIRED", message: "The session token has expired. Log in again." };
    return { error: "UNAUTHORIZED", message: "Unknown token. Call login first." };
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    if (name === "login") {
      if (args.credentials.username.trim() !== this.username || args.credentials.pin.trim() !== this.pin) {
        return { error: "AUTH_FAILED", message: "Wrong username or PIN." };
      }
      if (this.token) this.oldTokens.push(this.token);
      this.token = `tok_${this.oldTokens.length + 1}_${this.pin.split("").reverse().join("")}`;
      this.tokenUses = 0;
      return { token: this.token };
    }
    if (name === "wait") {
      if (this.rateLimited && args.seconds >= this.retryAfter) this.rateLimited = false;
      return { waited_seconds: args.seconds };
    }
    const denied = this.session(args.token);
    if (denied) return denied;
    if (name === "list_accounts") {
      this.knowsAccounts = true;
      return { accounts: this.accounts.map((a) => ({ ...a })) };
    }
    if (name === "find_payee") {
      const q = args.query.name.trim().toLowerCase();
      const hits = this.payees.filter((p) => q !== "" && p.name.toLowerCase().includes(q.split(" ").pop()));
      if (hits.some((p) => p === this.payee)) this.knowsPayee = true;
      return { payees: hits.map((p) => ({ ...p })) };
    }
    return this.transfer(args);
  }

  transfer(args) {
    this.transferAttempts++;
    if (this.rateLimitFirst && this.transferAttempts === 1) this.rateLimited = true;
    if (this.rateLimited) return { error: "RATE_LIMITED", message: "Too many transfer requests.", retry_after_seconds: this.retryAfter };
    const from = this.accounts.find((a) => a.account_id === args.from_account_id.trim());
    if (!from) return { error: "ACCOUNT_NOT_FOUND", message: "No account with that id." };
    const iban = args.to.iban.replace(/\s+/g, "").toUpperCase();
    const payee = this.payees.find((p) => p.iban === iban);
    if (!payee) return { error: "INVALID_IBAN", message: "The IBAN is not a saved payee." };
    if (payee.name.toLowerCase() !== args.to.name.trim().toLowerCase()) {
      return { error: "NAME_MISMATCH", message: "The beneficiary name does not match the IBAN holder." };
    }
    if (!(args.amount.value > 0)) return { error: "INVALID_AMOUNT", message: "The amount must be positive." };
    if (args.amount.currency !== from.currency) {
      return { error: "CURRENCY_MISMATCH", message: `Account ${from.account_id} holds ${from.currency}; the amount is in ${args.amount.currency}.` };
    }
    if (args.amount.value > from.balance + 1e-9) {
      return { error: "INSUFFICIENT_FUNDS", message: `Available balance is ${from.balance.toFixed(2)} ${from.currency}.` };
    }
    from.balance = Math.round((from.balance - args.amount.value) * 100) / 100;
    const record = {
      transfer_id: `TRX-${this.reference.slice(-4)}${this.transfers.length + 1}`,
      from: from.account_id,
      iban,
      value: args.amount.value,
      currency: args.amount.currency,
      reference: args.reference.trim(),
    };
    this.transfers.push(record);
    return { transfer_id: record.transfer_id, status: "completed" };
  }

  isTarget(t) {
    return t.from === this.source.account_id && t.iban === this.payee.iban && Math.abs(t.value - this.amount) < 0.005 && t.currency === "EUR" && t.reference === this.reference;
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.done) {
      out.observation = "The session is closed.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "The session is closed." }));
      return out;
    }
    if (calls.length) {
      out.toolResults = calls.map((c) => ({ id: c.id, content: JSON.stringify(this.call(c.name, c.arguments)) }));
      out.observation = "Tool results returned.";
    }
    const answer = typeof action.answer === "string" ? action.answer.trim() : "";
    if (answer) {
      this.done = true;
      const ok = this.transfers.length === 1 && this.isTarget(this.transfers[0]) && answer.toUpperCase() === this.transfers[0].transfer_id;
      out.reward = ok ? 1 : 0;
      out.terminated = true;
      out.observation = ok ? "The customer sees the payment. Thank you!" : "The customer checks the statement: that is not the payment that was asked for.";
      out.info = { success: ok, transfers: this.transfers.length };
    } else if (!calls.length) {
      out.observation = "Use the banking tools, then give the transfer id in \\boxed{}.";
    }
    return out;
  }

  hint() {
    return (
      `Pay from ${this.source.type} ${this.source.account_id}${this.fundsShort ? " (checking lacks funds)" : ""}; payee ${this.payee.name}, IBAN ${this.payee.iban} (not the similar names). ` +
      `Tokens expire after ${this.tokenLimit} uses: log in again on TOKEN_EXPIRED. ` +
      (this.rateLimitFirst ? `The first transfer is rate-limited: wait ${this.retryAfter} seconds, then retry. ` : "") +
      "Never retry a transfer that already completed."
    );
  }

  solve() {
    const done = this.transfers.find((t) => this.isTarget(t));
    if (done) return { text: `The payment went through. \\boxed{${done.transfer_id}}` };
    if (this.rateLimited) return { toolCalls: [{ name: "wait", arguments: { seconds: this.retryAfter } }] };
    if (this.token === null || this.tokenUses >= this.tokenLimit) {
      return { toolCalls: [{ name: "login", arguments: { credentials: { username: this.username, pin: this.pin } } }] };
    }
    if (!this.knowsAccounts) return { toolCalls: [{ name: "list_accounts", arguments: { token: this.token } }] };
    if (!this.knowsPayee) return { toolCalls: [{ name: "find_payee", arguments: { token: this.token, query: { name: this.payee.name } } }] };
    return {
      toolCalls: [
        {
          name: "transfer",
          arguments: {
            token: this.token,
            from_account_id: this.source.account_id,
            to: { iban: this.payee.iban, name: this.payee.name },
            amount: { value: this.amount, currency: "EUR" },
            reference: this.reference,
          },
        },
      ],
    };
  }
}

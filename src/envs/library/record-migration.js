// Record migration: move customer records from a paginated legacy CRM into a new CRM with a
// different nested schema: skip inactive and superseded records, split names, parse phones, map
// tiers, update contacts that already exist instead of duplicating them, then file a report.
// Long-horizon: about twenty calls.
class Environment {
  static meta = {
    name: "record-migration",
    skill: "Multi-Step Workflows",
    description:
      "Migrate 15-17 customer records page by page from a legacy CRM into a new CRM: transform each active record into a nested contact (name parts, parsed phone, mapped tier, source link), de-duplicate by email, update existing contacts rather than recreate them, and submit a migration report with exact counts. About twenty tool calls.",
    maxTurns: 40,
    tools: [
      {
        type: "function",
        function: {
          name: "legacy_list_customers",
          description: "One page (4 records) of the legacy CRM, oldest legacy_id first.",
          parameters: { type: "object", properties: { page: { type: "integer", minimum: 1 } }, required: ["page"] },
        },
      },
      {
        type: "function",
        function: {
          name: "crm_find_contact",
          description: "Find a contact in the new CRM by email.",
          parameters: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
        },
      },
      {
        type: "function",
        function: {
          name: "crm_create_contact",
          description: "Create a contact in the new CRM. Fails if the email already exists.",
          parameters: {
            type: "object",
            properties: {
              contact: {
                type: "object",
                properties: {
                  name: { type: "object", properties: { first: { type: "string" }, last: { type: "string" } }, required: ["first", "last"] },
                  email: { type: "string" },
                  phone: {
                    type: "object",
                    properties: { country_code: { type: "string", description: "digits only, e.g. 44" }, number: { type: "string", description: "digits only" } },
                    required: ["country_code", "number"],
                  },
                  tier: { type: "string", enum: ["gold", "silver", "bronze"] },
                },
                required: ["name", "email", "phone", "tier"],
              },
              source: {
                type: "object",
                properties: { system: { type: "string", enum: ["legacy-crm"] }, legacy_id: { type: "string" } },
                required: ["system", "legacy_id"],
              },
            },
            required: ["contact", "source"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "crm_update_contact",
          description: "Change fields of an existing new-CRM contact.",
          parameters: {
            type: "object",
            properties: {
              contact_id: { type: "string" },
              changes: {
                type: "object",
                properties: {
                  tier: { type: "string", enum: ["gold", "silver", "bronze"] },
                  phone: {
                    type: "object",
                    properties: { country_code: { type: "string" }, number: { type: "string" } },
                    required: ["country_code", "number"],
                  },
                },
              },
            },
            required: ["contact_id", "changes"],
          },
        },
      },
      {
        type: "function",
        function: {
          name: "finish_migration",
          description: "Submit the migration report. Ends the task.",
          parameters: {
            type: "object",
            properties: {
              report: {
                type: "object",
                properties: { created: { type: "integer" }, updated: { type: "integer" }, skipped: { type: "integer" } },
                required: ["created", "updated", "skipped"],
              },
            },
            required: ["report"],
          },
        },
      },
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
    const firsts = shuffle(["Ada", "Bruno", "Chloe", "Dmitri", "Elif", "Farid", "Greta", "Hugo", "Ingrid", "Jamal", "Keiko", "Liam", "Mira", "Nils", "Olu", "Paula", "Quinn", "Rosa"]);
    const lasts = shuffle(["Andersen", "Barros", "Chen", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova", "Jones", "Kowalski", "Lopez", "Meyer", "Nakamura", "Okoro", "Petit", "Quist", "Rossi"]);
    const domains = ["example.org", "mailbox.net", "corp.example", "post.example"];
    const phone = () => {
      const cc = pick(["44", "49", "1", "33"]);
      const digits = String(rint(2, 9)) + Array.from({ length: 9 }, () => rint(0, 9)).join("");
      const styles = [
        `+${cc} (${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`,
        `+${cc} ${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}`,
        `+${cc}-${digits.slice(0, 3)}-${digits.slice(3)}`,
      ];
      return { raw: pick(styles), parsed: { country_code: cc, number: digits } };
    };
    const n = rint(15, 17);
    const people = [];
    for (let i = 0; i < n; i++) {
      const p = phone();
      people.push({
        first: firsts[i],
        last: lasts[i],
        email: `${firsts[i].toLowerCase()}.${lasts[i].toLowerCase()}@${pick(domains)}`,
        phone: p,
        tier: pick(["G", "S", "B"]),
        status: "active",
        updated: `2024-${String(rint(1, 6)).padStart(2, "0")}-${String(rint(10, 28))}`,
      });
    }
    // Roles: three inactive records, one superseded duplicate (same email, later update wins),
    // three contacts already in the new CRM (one identical, two with changed tier or phone).
    const idx = shuffle(people.map((_, i) => i));
    for (const i of idx.slice(0, 3)) people[i].status = "inactive";
    const dupSource = people[idx[3]];
    const dupPhone = phone();
    const newer = { ...dupSource, phone: dupPhone, tier: dupSource.tier === "G" ? "S" : "G", updated: `2024-${String(rint(7, 12)).padStart(2, "0")}-${String(rint(10, 28))}` };
    people.splice(Math.min(people.length, idx[3] + rint(2, 6)), 0, newer);
    this.records = people.map((p, i) => ({ legacy_id: `L-${String(1000 + i * 3 + rint(0, 2))}`, full_name: `${p.last}, ${p.first}`, email: p.email, phone: p.phone.raw, status: p.status, tier: p.tier, updated: p.updated, _p: p }));
    const tierName = { G: "gold", S: "silver", B: "bronze" };
    const contact = (p) => ({ name: { first: p.first, last: p.last }, email: p.email, phone: { ...p.phone.parsed }, tier: tierName[p.tier] });

    // Which legacy record is authoritative for each email.
    const latest = {};
    for (const r of this.records) if (!latest[r.email] || r.updated > latest[r.email].updated) latest[r.email] = r;
    const wanted = this.records.filter((r) => r.status === "active" && latest[r.email] === r);
    const existingPicks = shuffle(wanted.filter((r) => r.email !== dupSource.email)).slice(0, 3);
    this.crm = [];
    let cid = rint(500, 900);
    const add = (c, source) => this.crm.push({ contact_id: `CT-${(cid += rint(1, 7))}`, ...JSON.parse(JSON.stringify(c)), source });
    existingPicks.forEach((r, k) => {
      const c = contact(r._p);
      if (k === 1) c.tier = c.tier === "gold" ? "bronze" : "gold";
      if (k === 2) c.phone.number = c.phone.number.slice(0, -2) + "00";
      add(c, { system: "web-signup" });
    });
    add({ name: { first: "Sven", last: "Holm" }, email: "sven.holm@example.org", phone: { country_code: "46", number: "701234567" }, tier: "silver" }, { system: "web-signup" });
    this.crmBefore = JSON.parse(JSON.stringify(this.crm));

    // Expected final state and report.
    const expected = JSON.parse(JSON.stringify(this.crm));
    let created = 0;
    let updated = 0;
    this.plan = [];
    for (const r of wanted) {
      const c = contact(r._p);
      const existing = expected.find((x) => x.email === r.email);
      if (!existing) {
        expected.push({ contact_id: null, ...c, source: { system: "legacy-crm", legacy_id: r.legacy_id } });
        created++;
        this.plan.push({ op: "create", record: r, contact: c });
      } else if (existing.tier !== c.tier || JSON.stringify(existing.phone) !== JSON.stringify(c.phone)) {
        const changes = {};
        if (existing.tier !== c.tier) changes.tier = c.tier;
        if (JSON.stringify(existing.phone) !== JSON.stringify(c.phone)) changes.phone = c.phone;
        Object.assign(existing, changes);
        updated++;
        this.plan.push({ op: "update", record: r, contact_id: existing.contact_id, changes });
      } else {
        this.plan.push({ op: "same", record: r, contact_id: existing.contact_id });
      }
    }
    this.expected = expected;
    this.report = { created, updated, skipped: this.records.length - created - updated };
    for (const r of this.records) delete r._p;
    this.pagesRead = [];
    this.found = [];
    this.finished = null;
    return {
      observation:
        "You migrate customers from the legacy CRM to the new CRM (legacy_list_customers, crm_find_contact, crm_create_contact, crm_update_contact, finish_migration). Rules:\n" +
        "- Migrate active records only.\n" +
        "- If an email appears on several legacy records, only the one with the latest updated date counts.\n" +
        '- Legacy full_name is "Last, First"; phones become {country_code, number} with digits only (no +, spaces or punctuation); tiers map G=gold, S=silver, B=bronze.\n' +
        '- New contacts get source {system: "legacy-crm", legacy_id}.\n' +
        "- If the email already exists in the new CRM, do not create it again: update its tier and/or phone where they differ, or leave it alone when they match.\n" +
        "Finish with a report: created and updated contacts, and skipped = every other legacy record.",
      info: { records: this.records.length },
    };
  }

  static schemaError(schema, value, path) {
    if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(", ")}`;
    if (schema.type === "object") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path} must be an object`;
      for (const key of schema.required || []) if (!(key in value)) return `${path}.${key} is required`;
      for (const key of Object.keys(value)) {
        if (!schema.properties[key]) return `${path}.${key} is not a field of the new CRM`;
        const err = Environment.schemaError(schema.properties[key], value[key], `${path}.${key}`);
        if (err) return err;
      }
    } else if (schema.type === "string" && typeof value !== "string") return `${path} must be a string`;
    else if (schema.type === "integer" && (!Number.isInteger(value) || value < (schema.minimum ?? -Infinity))) return `${path} must be an integer${schema.minimum ? ` >= ${schema.minimum}` : ""}`;
    return null;
  }

  call(name, args) {
    const spec = Environment.meta.tools.find((t) => t.function.name === name);
    if (!spec) return { error: "UNKNOWN_TOOL", message: `No tool named ${JSON.stringify(name)}.` };
    const err = Environment.schemaError(spec.function.parameters, args, "arguments");
    if (err) return { error: "INVALID_ARGUMENTS", message: err };
    const strip = (c) => ({ contact_id: c.contact_id, name: { ...c.name }, email: c.email, phone: { ...c.phone }, tier: c.tier, source: { ...c.source } });
    if (name === "legacy_list_customers") {
      const pages = Math.ceil(this.records.length / 4);
      if (args.page > pages) return { page: args.page, pages, records: [] };
      if (!this.pagesRead.includes(args.page)) this.pagesRead.push(args.page);
      return { page: args.page, pages, records: this.records.slice((args.page - 1) * 4, args.page * 4).map((r) => ({ ...r })) };
    }
    if (name === "crm_find_contact") {
      const email = args.email.trim().toLowerCase();
      const c = this.crm.find((x) => x.email === email);
      if (!this.found.includes(email)) this.found.push(email);
      return c ? { contact: strip(c) } : { error: "NOT_FOUND", message: "No contact with that email." };
    }
    if (name === "crm_create_contact") {
      const c = args.contact;
      const email = c.email.trim().toLowerCase();
      const clash = this.crm.find((x) => x.email === email);
      if (clash) return { error: "DUPLICATE_EMAIL", message: `A contact with that email exists: ${clash.contact_id}.` };
      if (!/^\d+$/.test(c.phone.country_code) || !/^\d+$/.test(c.phone.number)) return { error: "INVALID_PHONE", message: "country_code and number must be digits only." };
      const created = { contact_id: `CT-${2000 + this.crm.length}`, name: { first: c.name.first.trim(), last: c.name.last.trim() }, email, phone: { ...c.phone }, tier: c.tier, source: { system: args.source.system, legacy_id: args.source.legacy_id.trim() } };
      this.crm.push(created);
      return { contact: strip(created) };
    }
    if (name === "crm_update_contact") {
      const c = this.crm.find((x) => x.contact_id === args.contact_id.trim());
      if (!c) return { error: "NOT_FOUND", message: "No contact with that id." };
      if (Object.keys(args.changes).length === 0) return { error: "NOTHING_TO_CHANGE", message: "changes is empty." };
      const p = args.changes.phone;
      if (p && (!/^\d+$/.test(p.country_code) || !/^\d+$/.test(p.number))) return { error: "INVALID_PHONE", message: "country_code and number must be digits only." };
      if (args.changes.tier) c.tier = args.changes.tier;
      if (p) c.phone = { ...p };
      c.touched = true;
      return { contact: strip(c) };
    }
    this.finished = args.report;
    return { status: "submitted" };
  }

  // Contacts compared without ids (created ids are assigned by the CRM).
  static key(c) {
    return JSON.stringify([c.email, c.name.first, c.name.last, c.phone.country_code, c.phone.number, c.tier, c.source.system, c.source.legacy_id || ""]);
  }

  grade() {
    const got = new Set(this.crm.map(Environment.key));
    const want = this.expected.map(Environment.key);
    const right = want.filter((k) => got.has(k)).length;
    const stateOk = right === want.length && this.crm.length === want.length;
    const r = this.finished;
    const reportOk = r.created === this.report.created && r.updated === this.report.updated && r.skipped === this.report.skipped;
    return { ok: stateOk && reportOk, right, total: want.length, reportOk };
  }

  step(action) {
    const calls = Array.isArray(action.toolCalls) ? action.toolCalls : [];
    const out = { observation: "", reward: 0, terminated: false, truncated: false, info: {} };
    if (this.finished) {
      out.observation = "The migration was already reported.";
      out.terminated = true;
      if (calls.length) out.toolResults = calls.map((c) => ({ id: c.id, content: "Finished already." }));
      return out;
    }
    if (!calls.length) {
      out.observation = "Use the CRM tools; finish_migration ends the task.";
      return out;
    }
    out.toolResults = calls.map((c) => ({ id: c.id, content: this.finished ? "Finished already." : JSON.stringify(this.call(c.name, c.arguments)) }));
    out.observation = "Tool results returned.";
    if (this.finished) {
      const g = this.grade();
      out.terminated = true;
      // Partial credit for a partly right migration stays well below success.
      out.reward = g.ok ? 1 : Math.round(((0.4 * g.right) / g.total + (g.reportOk ? 0.1 : 0)) * 100) / 100;
      out.observation = g.ok ? "Migration verified." : `Audit: ${g.total - g.right} expected contact(s) missing or wrong, ${this.crm.length} contacts in the CRM, report ${g.reportOk ? "correct" : "wrong"}.`;
      out.info = { success: g.ok, rightContacts: g.right, reportOk: g.reportOk };
    }
    return out;
  }

  hint() {
    const creates = this.plan.filter((p) => p.op === "create").map((p) => p.record.legacy_id);
    const updates = this.plan.filter((p) => p.op === "update").map((p) => `${p.record.email} -> ${p.contact_id} ${JSON.stringify(p.changes)}`);
    const same = this.plan.filter((p) => p.op === "same").map((p) => p.record.email);
    return `Create from ${creates.join(", ")}. Update: ${updates.join("; ")}. Already correct: ${same.join(", ")}. Report ${JSON.stringify(this.report)}.`.slice(0, 2000);
  }

  solve() {
    const pages = Math.ceil(this.records.length / 4);
    // Read all pages first: a later duplicate can supersede an earlier record.
    for (let p = 1; p <= pages; p++) if (!this.pagesRead.includes(p)) return { toolCalls: [{ name: "legacy_list_customers", arguments: { page: p } }] };
    for (const step of this.plan) {
      const email = step.record.email;
      if (step.op === "create") {
        if (this.crm.some((c) => c.email === email)) continue;
        return { toolCalls: [{ name: "crm_create_contact", arguments: { contact: JSON.parse(JSON.stringify(step.contact)), source: { system: "legacy-crm", legacy_id: step.record.legacy_id } } }] };
      }
      if (!this.found.includes(email)) return { toolCalls: [{ name: "crm_find_contact", arguments: { email } }] };
      const c = this.crm.find((x) => x.contact_id === step.contact_id);
      if (step.op === "update" && !c.touched) return { toolCalls: [{ name: "crm_update_contact", arguments: { contact_id: step.contact_id, changes: JSON.parse(JSON.stringify(step.changes)) } }] };
    }
    return { toolCalls: [{ name: "finish_migration", arguments: { report: { ...this.report } } }] };
  }
}

/**
 * Rules of the tool-use programs in the library, played through the real sandbox: exact error
 * codes for bad nested arguments, the traps each task sets, and what counts as success.
 * (The generic contract for every program lives in library.test.ts.)
 */
import { describe, expect, it } from "vitest";
import {
  makeAction,
  type Action,
  type Env,
  type Json,
  type JsonObject,
  type StepResult,
} from "../env/index.js";
import { libraryOpener } from "./testing/open-library.js";

const open = libraryOpener();

/** One tool call; returns the step and the parsed tool result. */
async function call(env: Env, name: string, args: Json): Promise<{ step: StepResult; out: any }> {
  const step = await env.step({
    text: "",
    answer: null,
    toolCalls: [{ id: "t1", name, arguments: args as JsonObject }],
  });
  return { step, out: JSON.parse(step.toolResults?.[0]?.content ?? "null") };
}

/** The first seed whose reset info satisfies `wanted`. */
async function seedWhere(env: Env, wanted: (info: JsonObject) => boolean): Promise<number> {
  for (let seed = 0; seed < 100; seed++) if (wanted((await env.reset(seed)).info)) return seed;
  throw new Error("no seed found");
}

/** Follows the oracle until its next action calls `tool` (which is returned, not played). */
async function oracleUntil(env: Env, tool: string): Promise<Action> {
  for (let turn = 0; turn < env.meta.maxTurns; turn++) {
    const next = await env.solve();
    if (next.toolCalls[0]?.name === tool) return next;
    await env.step(next);
  }
  throw new Error(`the oracle never called ${tool}`);
}

/** Plays the oracle to the end; returns the number of turns and the last reward. */
async function playOracle(env: Env): Promise<{ turns: number; reward: number }> {
  for (let turn = 1; turn <= env.meta.maxTurns; turn++) {
    const result = await env.step(await env.solve());
    if (result.terminated) return { turns: turn, reward: result.reward };
  }
  return { turns: env.meta.maxTurns, reward: 0 };
}

function args(action: Action): any {
  return structuredClone(action.toolCalls[0]?.arguments);
}

describe("flight-booker", () => {
  it("checks nested travelers exactly and fails a booking with the wrong seat preference", async () => {
    const env = await open("flight-booker");
    await env.reset(await seedWhere(env, (info) => info.kind === "execute"));
    const book = args(await oracleUntil(env, "book_flight"));
    const bare = await call(env, "book_flight", {
      ...book,
      travelers: [{ traveler_id: book.travelers[0].traveler_id }],
    });
    expect(bare.out).toEqual({
      error: "INVALID_ARGUMENTS",
      message: "arguments.travelers[0].seat_preference is required",
    });
    book.travelers[0].seat_preference =
      book.travelers[0].seat_preference === "aisle" ? "window" : "aisle";
    const booked = await call(env, "book_flight", book);
    expect(booked.out.status).toBe("confirmed");
    const answer = await env.step(makeAction(`\\boxed{${booked.out.booking_id}}`));
    expect([answer.reward, answer.terminated]).toEqual([0, true]);
  });

  it("declines an out-of-scope request without tools, and names the missing field", async () => {
    const env = await open("flight-booker");
    const offTopic = await seedWhere(env, (info) => info.kind === "irrelevant");
    expect((await env.step(makeAction("\\boxed{DECLINE}"))).reward).toBe(1);
    await env.reset(offTopic);
    await call(env, "search_flights", {
      route: { origin: "LIS", destination: "OSL" },
      date: "2025-01-01",
    });
    expect((await env.step(makeAction("\\boxed{DECLINE}"))).reward).toBe(0);
    const missing = await seedWhere(env, (info) => info.kind === "missing");
    const field = /does not say the (\w+)/.exec(await env.hint())?.[1];
    expect((await env.step(makeAction(`\\boxed{MISSING: ${field}}`))).reward).toBe(1);
    await env.reset(missing);
    expect((await env.step(makeAction("\\boxed{MISSING: passport number}"))).reward).toBe(0);
  });
});

describe("bank-transfer", () => {
  it("rejects a wrong PIN and expires a token after its allowed uses", async () => {
    const env = await open("bank-transfer");
    const { tokenLimit } = (await env.reset(1)).info as { tokenLimit: number };
    const login = args(await env.solve());
    expect(
      (await call(env, "login", { credentials: { ...login.credentials, pin: "0000x" } })).out,
    ).toEqual({ error: "AUTH_FAILED", message: "Wrong username or PIN." });
    const token = (await call(env, "login", login)).out.token as string;
    for (let use = 0; use < tokenLimit; use++)
      expect((await call(env, "list_accounts", { token })).out.accounts).toHaveLength(3);
    expect((await call(env, "list_accounts", { token })).out.error).toBe("TOKEN_EXPIRED");
  });

  it("counts a second transfer of the same payment as a failure", async () => {
    const env = await open("bank-transfer");
    await env.reset(await seedWhere(env, (info) => info.fundsShort === true));
    const login = args(await env.solve());
    let transfer: any = null;
    for (let turn = 0; turn < 12; turn++) {
      const next = await env.solve();
      if (next.toolCalls.length === 0) break;
      if (next.toolCalls[0]?.name === "transfer") transfer = args(next);
      await env.step(next);
    }
    const id = /\\boxed\{(.*)\}/.exec((await env.solve()).text)?.[1];
    const token = (await call(env, "login", login)).out.token;
    expect((await call(env, "transfer", { ...transfer, token })).out.status).toBe("completed");
    const answer = await env.step(makeAction(`\\boxed{${id}}`));
    expect([answer.reward, answer.info.transfers]).toEqual([0, 2]);
  });
});

describe("inventory-query", () => {
  it("rejects unknown filter fields and pages past the end; one answer ends it", async () => {
    const env = await open("inventory-query");
    await env.reset(0);
    expect((await call(env, "query_items", { filter: { colour: "red" } })).out).toEqual({
      error: "INVALID_ARGUMENTS",
      message: "arguments.filter.colour is not a filterable field",
    });
    expect((await call(env, "query_items", { filter: {}, page: 99 })).out).toEqual({
      error: "PAGE_OUT_OF_RANGE",
      message: "There are 9 page(s).",
    });
    const wrong = await env.step(makeAction("\\boxed{nothing}"));
    expect([wrong.reward, wrong.terminated]).toEqual([0, true]);
    await env.reset(0);
    expect((await playOracle(env)).reward).toBe(1);
  });
});

describe("email-client", () => {
  it("forwarding the spam look-alike fails; the genuine message succeeds", async () => {
    const env = await open("email-client");
    const seed = await seedWhere(env, (info) => info.missing === false);
    const spam = (await call(env, "search_emails", { query: { folder: "spam" } })).out.results[0];
    const body = (await call(env, "read_email", { id: spam.id })).out.body as string;
    const send = args(await oracleUntil(env, "send_email"));
    const sent = await call(env, "send_email", { message: { ...send.message, body } });
    expect([sent.step.reward, sent.step.terminated]).toEqual([0, true]);
    await env.reset(seed);
    expect((await playOracle(env)).reward).toBe(1);
  });

  it("asks for the recipient when the request names none", async () => {
    const env = await open("email-client");
    const seed = await seedWhere(env, (info) => info.missing === true);
    expect((await env.step(makeAction("\\boxed{MISSING: recipient}"))).reward).toBe(1);
    await env.reset(seed);
    const send = await call(env, "send_email", {
      message: { to: [{ email: "d.kim@acme.io" }], subject: "x", body: "x" },
    });
    expect(send.step.reward).toBe(0);
  });
});

describe("smart-home", () => {
  it("needs power before settings and the PIN for the lock; finishing early fails", async () => {
    const env = await open("smart-home");
    await env.reset(0);
    const devices = (await call(env, "list_devices", {})).out.devices as Array<{
      device_id: string;
      name: string;
      type: string;
    }>;
    const lock = devices.find((d) => d.type === "lock")!;
    expect(
      (await call(env, "set_state", { device_id: lock.device_id, state: { locked: true } })).out,
    ).toEqual({ error: "AUTH_REQUIRED", message: "Locks need auth.pin with the correct PIN." });
    expect(
      (await call(env, "set_state", { device_id: lock.device_id, state: { volume: 3 } })).out,
    ).toEqual({
      error: "UNSUPPORTED_FIELD",
      message: 'A lock has no field "volume" (fields: locked).',
    });
    let off: { device_id: string; name: string } | undefined;
    for (const d of devices.filter((x) => x.type === "light"))
      if ((await call(env, "get_state", { device_id: d.device_id })).out.state.power === "off")
        off = off ?? d;
    expect(off).toBeDefined();
    expect(
      (await call(env, "set_state", { device_id: off!.device_id, state: { brightness: 50 } })).out,
    ).toEqual({
      error: "DEVICE_OFF",
      message: `${off!.name} is off. Switch it on first, or send power "on" in the same call.`,
    });
    expect(
      (
        await call(env, "set_state", {
          device_id: off!.device_id,
          state: { power: "on", brightness: 50 },
        })
      ).out.state,
    ).toMatchObject({ power: "on", brightness: 50 });
    const early = await call(env, "finish", {});
    expect([early.step.reward, early.step.terminated]).toEqual([0, true]);
    await env.reset(0);
    expect((await playOracle(env)).reward).toBe(1);
  });
});

describe("spreadsheet-api", () => {
  it("caps reads at 40 cells and grades every cell of the workbook", async () => {
    const env = await open("spreadsheet-api");
    await env.reset(0);
    const big = await call(env, "read_range", {
      sheet: "Orders",
      range: { start: { row: 1, col: "A" }, end: { row: 13, col: "H" } },
    });
    expect(big.out).toEqual({
      error: "RANGE_TOO_LARGE",
      message: "That is 104 cells; read at most 40 at a time.",
    });
    await oracleUntil(env, "finish");
    await call(env, "write_cells", {
      sheet: "orders",
      updates: [{ cell: { row: 1, col: "a" }, value: "Order" }],
    });
    const done = await call(env, "finish", {});
    expect([done.step.reward, done.step.info.wrongCells]).toEqual([0, ["Orders!A1"]]);
  });
});

describe("release-pipeline", () => {
  it("refuses production without tests, and a wrong replica count fails the release", async () => {
    const env = await open("release-pipeline");
    await env.reset(2);
    const deploy = args(await oracleUntil(env, "deploy"));
    await env.reset(2);
    await oracleUntil(env, "run_tests");
    expect((await call(env, "deploy", deploy)).out.error).toBe("TESTS_REQUIRED");
    expect((await call(env, "deploy", { ...deploy, service: "billing" })).out).toEqual({
      error: "SERVICE_NOT_FOUND",
      message: "No such service.",
    });
    const final = args(await oracleUntil(env, "deploy"));
    final.config.replicas += 1;
    const wrong = await call(env, "deploy", final);
    expect([wrong.out.status, wrong.step.reward, wrong.step.terminated]).toEqual([
      "deployed",
      0,
      true,
    ]);
  });
});

describe("shipping-label", () => {
  it("answers an unverified address, an outage and a heavy parcel with their codes", async () => {
    const env = await open("shipping-label");
    const seed = await seedWhere(
      env,
      (info) => info.outage !== null && (info.parcels as number) > 1,
    );
    const outage = (await env.reset(seed)).info.outage as string;
    const raw = args(await env.solve()).address;
    const label = args(await oracleUntil(env, "create_label"));
    const quotes = (
      await call(env, "get_rates", { destination: { country: raw.country }, total_weight_kg: 1 })
    ).out.quotes as Array<{ carrier: string; service: string }>;
    const down = quotes.find((q) => q.carrier === outage)!;
    expect(
      (await call(env, "create_label", { ...label, shipment: { ...label.shipment, to: raw } })).out
        .error,
    ).toBe("ADDRESS_NOT_VERIFIED");
    expect(
      (await call(env, "create_label", { ...label, carrier: down.carrier, service: down.service }))
        .out.error,
    ).toBe("CARRIER_UNAVAILABLE");
    const total = label.shipment.parcels.reduce(
      (s: number, p: { weight_kg: number }) => s + p.weight_kg,
      0,
    );
    const oneBox = {
      ...label,
      shipment: {
        ...label.shipment,
        parcels: [{ ...label.shipment.parcels[0], weight_kg: total }],
      },
    };
    expect((await call(env, "create_label", oneBox)).out.error).toBe("PARCEL_TOO_HEAVY");
    expect((await call(env, "create_label", label)).step.reward).toBe(1);
  });
});

describe("recipe-scaler", () => {
  it("steers each conversion to the right tool", async () => {
    const env = await open("recipe-scaler");
    await env.reset(await seedWhere(env, (info) => info.kind === "execute"));
    expect(
      (await call(env, "convert_units", { quantity: { value: 1, unit: "cup" }, to_unit: "g" })).out,
    ).toEqual({
      error: "INCOMPATIBLE_UNITS",
      message: "Cannot convert volume to mass without a density; use convert_by_density.",
    });
    expect(
      (
        await call(env, "convert_by_density", {
          ingredient: "flour",
          quantity: { value: 100, unit: "ml" },
          to_unit: "l",
        })
      ).out.error,
    ).toBe("SAME_DIMENSION");
    expect(
      (
        await call(env, "convert_by_density", {
          ingredient: "flour",
          quantity: { value: 1, unit: "cup" },
          to_unit: "g",
        })
      ).out,
    ).toEqual({ value: 127.2, unit: "g" });
    expect(
      (await call(env, "convert_units", { quantity: { value: 2, unit: "tbsp" }, to_unit: "ml" }))
        .out,
    ).toEqual({ value: 30, unit: "ml" });
  });

  it("asks for the party size when it is missing", async () => {
    const env = await open("recipe-scaler");
    const seed = await seedWhere(env, (info) => info.kind === "missing");
    expect((await env.step(makeAction("\\boxed{MISSING: number of people}"))).reward).toBe(1);
    await env.reset(seed);
    expect((await env.step(makeAction("\\boxed{DECLINE}"))).reward).toBe(0);
  });
});

describe("long-horizon tool programs", () => {
  it.each(["support-triage", "record-migration", "warehouse-restock"])(
    "%s needs at least 15 oracle calls",
    async (name) => {
      const env = await open(name);
      for (const seed of [0, 1, 2]) {
        await env.reset(seed);
        const { turns, reward } = await playOracle(env);
        expect(reward).toBe(1);
        expect(turns).toBeGreaterThanOrEqual(15);
      }
    },
  );

  it("support-triage refuses self-merges and scores an untouched queue 0", async () => {
    const env = await open("support-triage");
    await env.reset(0);
    const id = (await call(env, "list_tickets", {})).out.tickets[0].ticket_id;
    expect((await call(env, "merge_tickets", { primary_id: id, duplicate_ids: [id] })).out).toEqual(
      { error: "INVALID_MERGE", message: "A ticket cannot be merged into itself." },
    );
    const done = await call(env, "finish", {});
    expect([done.step.reward, done.step.info.correctTickets]).toEqual([0, 0]);
  });

  it("record-migration refuses duplicate emails and scores a wrong report below success", async () => {
    const env = await open("record-migration");
    await env.reset(0);
    const contact = {
      name: { first: "Sven", last: "Holm" },
      email: "sven.holm@example.org",
      phone: { country_code: "46", number: "1" },
      tier: "gold",
    };
    const dup = await call(env, "crm_create_contact", {
      contact,
      source: { system: "legacy-crm", legacy_id: "L-1" },
    });
    expect(dup.out.error).toBe("DUPLICATE_EMAIL");
    const report = args(await oracleUntil(env, "finish_migration")).report;
    const wrong = await call(env, "finish_migration", {
      report: { ...report, skipped: report.skipped + 1 },
    });
    expect([wrong.step.reward, wrong.step.info.reportOk]).toEqual([0.4, false]);
  });

  it("warehouse-restock enforces docks and minimum order quantities", async () => {
    const env = await open("warehouse-restock");
    await env.reset(0);
    const po = args(await oracleUntil(env, "create_purchase_order")).po;
    const dock = await call(env, "create_purchase_order", {
      po: { ...po, ship_to: { ...po.ship_to, dock: "Z9" } },
    });
    expect(dock.out.error).toBe("INVALID_DOCK");
    const small = await call(env, "create_purchase_order", {
      po: { ...po, lines: [{ ...po.lines[0], qty: 1 }] },
    });
    expect(small.out.error).toBe("BELOW_MINIMUM");
    expect((await playOracle(env)).reward).toBe(1);
  });
});

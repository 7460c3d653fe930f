import { expect, it } from "vitest";
import { checkEnv } from "../../env/index.js";
import { oracleAgent, runEpisode } from "../../rollout/index.js";
import {
  BFCL_CATEGORIES,
  loadEntries,
  loadFunctionDocs,
  loadLongContextData,
  type BfclEntry,
} from "./index.js";
import { ADDED_FUNCTIONS_PROMPT, bfclEnv, entryTools } from "./env.js";
import {
  BFCL_DATA_DIR,
  BFCL_DATA_PRESENT,
  describeWithBfclData,
  TEST_TODAY,
} from "./testing/paths.js";
import { groundTruthPolicy, repeatingPolicy, silentPolicy } from "./testing/scripted-policies.js";

describeWithBfclData("BFCL Env", () => {
  const docs = BFCL_DATA_PRESENT ? loadFunctionDocs(BFCL_DATA_DIR) : new Map();
  const session = {
    loadLongContext: () => loadLongContextData(BFCL_DATA_DIR),
    today: TEST_TODAY,
  };
  const entries = (category: (typeof BFCL_CATEGORIES)[number]) =>
    loadEntries(BFCL_DATA_DIR, category);
  const open = (entry: BfclEntry) => bfclEnv({ entry, docs, session });

  it("scores 1 for the scripted ground-truth policy on all 800 entries (JSON tool calls)", async () => {
    const failures: string[] = [];
    for (const category of BFCL_CATEGORIES) {
      for (const entry of entries(category)) {
        const episode = await runEpisode(open(entry), groundTruthPolicy(entry), { seed: 0 });
        if (!episode.success)
          failures.push(
            `${entry.id}: ${JSON.stringify(episode.steps.at(-1)?.info)} ${episode.failure}`,
          );
      }
    }
    expect(failures).toEqual([]);
  });

  it("scores 1 for the oracle (solve) on every base entry", async () => {
    for (const entry of entries("base")) {
      const episode = await runEpisode(open(entry), oracleAgent, { seed: 3 });
      expect([entry.id, episode.return]).toEqual([entry.id, 1]);
    }
  });

  it("scores 0 for a policy that calls nothing, naming the empty turn", async () => {
    const [entry] = entries("base");
    const episode = await runEpisode(open(entry!), silentPolicy, { seed: 0 });
    expect(episode.return).toBe(0);
    expect(episode.turns).toBe(entry!.question.length);
    expect(episode.steps.at(-1)!.info).toMatchObject({
      valid: false,
      errorType: "multi_turn:empty_turn_model_response",
      errorMessage: "Model response list is empty for turn 0",
      failedTurn: 0,
    });
  });

  it("scores 0 when one argument is wrong (state mismatch) or a call is missing (response mismatch)", async () => {
    const [entry] = entries("base");
    // Turn 0: cd(folder='document'), mkdir(dir_name='temp'), mv(source='final_report.pdf', destination='temp').
    const wrongDir = groundTruthPolicy(entry!, (turn, calls) =>
      turn === 0
        ? calls.map((c) => (c.name === "mkdir" ? { ...c, arguments: { dir_name: "tmp" } } : c))
        : calls,
    );
    const first = await runEpisode(open(entry!), wrongDir, { seed: 0 });
    expect(first.return).toBe(0);
    expect(first.steps.at(-1)!.info).toMatchObject({
      errorType: "multi_turn:instance_state_mismatch",
      failedTurn: 0,
    });
    // Turn 1 without its grep: the state still matches, its result is missing.
    const noGrep = groundTruthPolicy(entry!, (turn, calls) =>
      turn === 1 ? calls.filter((c) => c.name !== "grep") : calls,
    );
    const second = await runEpisode(open(entry!), noGrep, { seed: 0 });
    expect(second.return).toBe(0);
    expect(second.steps.at(-1)!.info).toMatchObject({
      errorType: "multi_turn:execution_response_mismatch",
      failedTurn: 1,
    });
  });

  it("force-terminates the episode on the 21st tool-call step of a turn", async () => {
    const [entry] = entries("base");
    const episode = await runEpisode(open(entry!), repeatingPolicy("ls"), { seed: 0 });
    expect(episode.turns).toBe(21);
    expect(episode.return).toBe(0);
    expect(episode.steps.at(-1)!).toMatchObject({
      terminated: true,
      reward: 0,
      info: { errorType: "multi_turn:force_terminated", failedTurn: 0 },
    });
    expect(episode.steps[0]!.toolResults).toEqual([
      { id: "r0", content: '{"current_directory_content": ["document", "archive"]}' },
    ]);
  });

  it("withholds miss_func functions until their turn, then announces and adds them", async () => {
    const entry = entries("miss_func").find((e) => Object.keys(e.missedFunction).length > 0)!;
    const [turnText, names] = Object.entries(entry.missedFunction)[0]!;
    const holdout = Number(turnText);
    const env = open(entry);
    const toolNames = env.meta.tools.map((t) => t.function.name);
    for (const name of names) expect(toolNames).not.toContain(name);
    expect(entryTools(entry, docs).initial.map((d) => d.name)).toEqual(toolNames);
    const policy = groundTruthPolicy(entry);
    let observation = (await env.reset(0)).observation;
    let info: Record<string, unknown> = {};
    for (let turn = 0; turn < holdout; ) {
      const result = await env.step(await policy({ env, observation, toolResults: [], turn }));
      observation = result.observation;
      info = result.info;
      if (result.toolResults === undefined) turn++;
    }
    expect(observation.endsWith(`\n${ADDED_FUNCTIONS_PROMPT}`)).toBe(true);
    expect(
      (info.addedTools as Array<{ function: { name: string } }>).map((t) => t.function.name),
    ).toEqual(names);
    expect(env.currentTools().map((t) => t.function.name)).toEqual([...toolNames, ...names]);
    await env.close();
  });

  it("maps BFCL schema types to JSON Schema in meta.tools", () => {
    const [entry] = entries("base").filter((e) => e.involvedClasses.includes("TicketAPI"));
    const edit = open(entry!).meta.tools.find((t) => t.function.name === "edit_ticket")!;
    expect(edit.function.parameters.type).toBe("object");
    expect(
      (edit.function.parameters.properties as Record<string, { type: string }>).updates!.type,
    ).toBe("object");
    const json = JSON.stringify(open(entry!).meta.tools);
    expect(json).not.toMatch(/"type":"(dict|float|tuple|any)"/);
  });
});

describeWithBfclData("BFCL Env under the validator", () => {
  it("passes checkEnv (oracle succeeds, trivial policies fail, deterministic) for one entry per category", async () => {
    const docs = loadFunctionDocs(BFCL_DATA_DIR);
    const session = {
      loadLongContext: () => loadLongContextData(BFCL_DATA_DIR),
      today: TEST_TODAY,
    };
    for (const category of BFCL_CATEGORIES) {
      const entry = loadEntries(BFCL_DATA_DIR, category)[7]!;
      const report = await checkEnv(async () => bfclEnv({ entry, docs, session }), {
        seeds: [0, 1],
        trivialSeeds: [0, 1],
      });
      expect([entry.id, report.failures, report.checks.filter((c) => !c.ok)]).toEqual([
        entry.id,
        [],
        [],
      ]);
    }
  });
});

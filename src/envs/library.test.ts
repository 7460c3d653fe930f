import { describe, expect, it } from "vitest";
import { describeEnvContract } from "../../test/env-contract.js";
import { oracleAgent, runEpisode } from "../rollout/index.js";
import { loadProgram, SANDBOX_BACKENDS } from "../sandbox/index.js";
import { libraryNames, resolveProgram } from "./index.js";

const names = libraryNames();

describe("the built-in library", () => {
  it("is large and varied enough to seed the designer", async () => {
    const metas = await Promise.all(
      names.map(async (name) => {
        const env = await loadProgram(resolveProgram(name).source);
        await env.close();
        return env.meta;
      }),
    );
    expect(metas.map((m) => m.name)).toEqual(names);
    expect(names.length).toBeGreaterThanOrEqual(24);
    expect(new Set(metas.map((m) => m.skill)).size).toBeGreaterThanOrEqual(6);
    const nested = metas.filter((m) =>
      m.tools.some((t) =>
        Object.values(
          (t.function.parameters.properties ?? {}) as Record<string, { type?: string }>,
        ).some((p) => p.type === "object" || p.type === "array"),
      ),
    );
    expect(nested.length).toBeGreaterThanOrEqual(6);
  });

  it("has at least four long-horizon environments (the oracle needs 15+ turns on seeds 0-2)", async () => {
    const long: string[] = [];
    for (const name of names) {
      const env = await loadProgram(resolveProgram(name).source);
      const turns = [];
      for (const seed of [0, 1, 2])
        turns.push((await runEpisode(env, oracleAgent, { seed })).turns);
      await env.close();
      if (Math.min(...turns) >= 15) long.push(name);
    }
    expect(long.length).toBeGreaterThanOrEqual(4);
  });
});

for (const backend of SANDBOX_BACKENDS) {
  describe.each(names)(`library %s on ${backend}`, (name) => {
    describeEnvContract(() => loadProgram(resolveProgram(name).source, { backend }));
  });
}

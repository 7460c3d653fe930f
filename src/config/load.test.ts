import { describe, expect, it } from "vitest";
import {
  buildConfig,
  DEFAULT_SKILLS,
  flagName,
  preset,
  PRESETS,
  resumeConfig,
  type RunConfig,
} from "./load.js";

describe("buildConfig", () => {
  it("applies the reference defaults and derives R, D, skills and document length from the mode", () => {
    const games = buildConfig([]);
    expect(games).toMatchObject({
      steps: 400,
      designsPerStep: 24,
      plays: null,
      agentBatch: 192,
      batchFit: "reference",
      hintedPlays: 16,
      regenerateEvery: 4,
      rewardDelay: 4,
      maxWords: 6000,
      reward: "blend",
      invalidDesign: "lowest",
      train: true,
    });
    // The reference's games recipe: 3 of the 6 skills per regeneration (8 designs each of 24), at most 25 turns.
    expect(games).toMatchObject({
      skillsPerRegen: 3,
      maxTurnsCap: 25,
      episodeFailures: "reference",
      memoryDraws: "attempt",
    });
    expect(games.skills).toHaveLength(6);
    const tools = buildConfig([{ mode: "tool-use" }]);
    expect(tools).toMatchObject({
      regenerateEvery: 8,
      rewardDelay: 8,
      maxWords: 4000,
      skillsPerRegen: 6,
    });
    expect(buildConfig([{ maxTurnsCap: "none" }]).maxTurnsCap).toBeNull();
    expect(buildConfig([{ skills: "A,B" }]).skillsPerRegen).toBe(3);
    expect(tools.skills).toContain("Error Recovery");
  });

  it("layers preset < file < flags and coerces flag strings", () => {
    const cfg = buildConfig([
      preset("quick"),
      { steps: 5, skills: ["A"] },
      { steps: "7", skills: "X, Y,Z", train: "false", temperature: "0.5" },
    ]);
    expect(cfg).toMatchObject({
      steps: 7,
      designsPerStep: 4,
      skills: ["X", "Y", "Z"],
      train: false,
      temperature: 0.5,
      regenerateEvery: 1,
      rewardDelay: 1,
    });
  });

  it("names the key and flag of an invalid value, and rejects unknown keys and presets", () => {
    expect(() => buildConfig([{ designsPerStep: "0" }])).toThrow(
      /^setting designsPerStep \(--designs-per-step\): Too small: expected number to be >=1 \(got "0"\)$/,
    );
    expect(() => buildConfig([{ reward: "vibes" }])).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    expect(() => buildConfig([{ stepz: 3 }])).toThrow(
      /^unknown setting: stepz \(did you mean steps\?\) \(`spade run --help` lists every setting\)$/,
    );
    expect(() => buildConfig([{ "max-off-policy": 1, xyzzy: 2 }])).toThrow(
      /^unknown settings: max-off-policy \(did you mean maxOffPolicy\?\), xyzzy \(/,
    );
    expect(() => preset("huge")).toThrow(/unknown preset "huge"/);
    expect(flagName("hintedPlays")).toBe("hinted-plays");
  });

  it("bounds every size setting with a message that says why", () => {
    expect(() => buildConfig([{ plays: "1e8" }])).toThrow(
      /^setting plays \(--plays\): at most 1,024 \(every play of a step is held in memory for scoring\) \(got "1e8"\)$/,
    );
    expect(() => buildConfig([{ hintedPlays: "1e8" }])).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: expect.stringMatching(/^setting hintedPlays \(--hinted-plays\): at most 1,024/),
      }),
    );
    expect(() => buildConfig([{ designsPerStep: "1e8" }])).toThrow(
      /^setting designsPerStep \(--designs-per-step\): at most 1,024 /,
    );
    expect(() => buildConfig([{ steps: "1e12" }])).toThrow(
      /^setting steps \(--steps\): at most 1,000,000 /,
    );
    expect(() => buildConfig([{ concurrency: 5000 }])).toThrow(
      /^setting concurrency \(--concurrency\): at most 1,024 /,
    );
    expect(() => buildConfig([{ maxAnswerBytes: 10 }])).toThrow(
      /^setting maxAnswerBytes \(--max-answer-bytes\): Too small: expected number to be >=1024/,
    );
    expect(() => buildConfig([{ requestTimeout: "0" }])).toThrow(
      /^setting requestTimeout \(--request-timeout\): Too small/,
    );
    expect(() => buildConfig([{ retryBudget: "1e9" }])).toThrow(
      /^setting retryBudget \(--retry-budget\): at most 604,800 s/,
    );
    expect(buildConfig([{ plays: 1024, hintedPlays: 0, designsPerStep: 64 }])).toMatchObject({
      plays: 1024,
      designsPerStep: 64,
    });
  });

  it("bounds the episodes of one step across settings", () => {
    expect(() => buildConfig([{ plays: 1024, hintedPlays: 1024, designsPerStep: 33 }])).toThrow(
      "a step would play 67584 episodes (--designs-per-step 33, --plays 1024, --hinted-plays 1024), over the limit of 65536 (lower --designs-per-step, --plays, --agent-batch or --hinted-plays (every play of a step is held in memory for scoring))",
    );
    // plays unset: about agentBatch unhinted plays (at most agentBatch + one per environment): 65536 + 24 + 24 x 16 = 65944.
    expect(() => buildConfig([{ agentBatch: 65536 }])).toThrow(
      "a step would play 65944 episodes (--designs-per-step 24, --agent-batch 65536, --hinted-plays 16)",
    );
    expect(buildConfig([{ agentBatch: 65128 }]).agentBatch).toBe(65128);
    expect(buildConfig([{ plays: 1024, hintedPlays: 1024, designsPerStep: 32 }]).plays).toBe(1024);
  });

  it("has model-server request settings with their defaults", () => {
    expect(buildConfig([])).toMatchObject({
      requestTimeout: 600,
      retryBudget: 1800,
      maxRetries: 4,
      maxAnswerBytes: 4_194_304,
    });
    expect(buildConfig([{ requestTimeout: "2.5", maxRetries: "0" }])).toMatchObject({
      requestTimeout: 2.5,
      maxRetries: 0,
    });
  });
});

describe("the reference's defaults (issue 9 items 5, 9, 10, 12, 14)", () => {
  it("samples both roles at 0.6 / 0.95 / 20, writes hints with the model, trains with PPO 0.2 / 0.28", () => {
    expect(buildConfig([])).toMatchObject({
      temperature: 0.6,
      topP: 0.95,
      topK: 20,
      hints: "model",
      hintTemperature: 0.3,
      hintMaxTokens: 4096,
      hintRetries: 3,
      loss: "ppo",
      ppoClipLow: 0.2,
      ppoClipHigh: 0.28,
      klCoef: 0,
      validation: "strict",
      corpus: "default",
      memory: "on",
      trainDesigner: "on",
      frontierScale: 0.08,
      truncatedEpisodes: "train",
      // Tinker's token sum and no gradient clipping, in both modes (not derived from the mode).
      lossAggregation: "token-sum",
      gradClipNorm: 0,
    });
    // Tool use masks truncated episodes: --spade-compact-filter of cmd/tool_use/_train_spade_blend.sh.
    expect(buildConfig([{ mode: "tool-use" }])).toMatchObject({
      hintMaxTokens: 2048,
      klCoef: 0.005,
      truncatedEpisodes: "mask",
      lossAggregation: "token-sum",
      gradClipNorm: 0,
    });
    expect(
      buildConfig([
        { mode: "tool-use", klCoef: "0", hintMaxTokens: "512", truncatedEpisodes: "train" },
      ]),
    ).toMatchObject({
      hintMaxTokens: 512,
      klCoef: 0,
      truncatedEpisodes: "train",
    });
  });

  it.each([
    ["hints", "program", "program"],
    ["validation", "reference", "reference"],
    ["corpus", "none", "none"],
    ["memory", "off", "off"],
    ["trainDesigner", "off", "off"],
    ["reward", "microLp", "microLp"],
    ["reward", "frontier", "frontier"],
    ["topK", "0", 0],
    ["truncatedEpisodes", "mask", "mask"],
    ["lossAggregation", "sample-mean", "sample-mean"],
    ["gradClipNorm", "1", 1],
    ["gradClipNorm", "0.5", 0.5],
  ] as const)("takes the switch %s %s", (key, flag, value) => {
    expect(buildConfig([{ [key]: flag }])[key]).toBe(value);
  });

  it("refuses values out of range", () => {
    for (const bad of [
      { topP: "0" },
      { topP: "1.5" },
      { topK: "-1" },
      { hintRetries: "0" },
      { ppoClipLow: "1.2" },
      { klCoef: "-0.1" },
      { truncatedEpisodes: "drop" },
      { lossAggregation: "token-mean" },
      { gradClipNorm: "-1" },
      { gradClipNorm: "none" },
      { validation: "loose" },
      { memory: "maybe" },
    ]) {
      expect(() => buildConfig([bad])).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
    }
  });
});

describe("presets reference and reference-tool-use (cmd/games/train_spade_30b.sh, cmd/tool_use/_train_spade_blend.sh)", () => {
  it("set every setting of the reference's games recipe", () => {
    const cfg = buildConfig([preset("reference")]);
    // Every setting of the preset reaches the config: none is lost to a default or a derivation.
    expect(cfg).toMatchObject(PRESETS.reference!);
    // The recipe's numbers as docs/reference-notes.md lists them (section 1's constants, then
    // section 7's table, in its order).
    expect(cfg).toMatchObject({
      designsPerStep: 24,
      agentBatch: 192,
      regenerateEvery: 4,
      rewardDelay: 4,
      steps: 400,
      temperature: 0.6,
      topP: 0.95,
      topK: 20,
      hintTemperature: 0.3,
      hintMaxTokens: 4096,
      maxTokens: 8192,
      designerMaxTokens: 16384,
      maxTurnsCap: 25,
      maxWords: 6000,
      learningRate: 1e-6,
      ppoClipLow: 0.2,
      ppoClipHigh: 0.28,
      klCoef: 0,
      memory: "on",
      memoryWindow: 200,
      // Slime's loss: per-sample mean over the step's batch, global norm clipped at 1.0.
      lossAggregation: "sample-mean",
      gradClipNorm: 1,
    });
    expect(cfg.skills).toEqual(DEFAULT_SKILLS.games);
  });

  it("tool use: R = D = 8, 4,000 words, hint budget 2,048, KL 0.005; flags still override a preset", () => {
    const cfg = buildConfig([preset("reference-tool-use")]);
    expect(cfg).toMatchObject({
      mode: "tool-use",
      regenerateEvery: 8,
      rewardDelay: 8,
      maxWords: 4000,
      hintMaxTokens: 2048,
      klCoef: 0.005,
      loss: "ppo",
      invalidDesign: "drop",
      skillsPerRegen: 6,
      truncatedEpisodes: "mask",
      lossAggregation: "sample-mean",
      gradClipNorm: 1,
    });
    expect(buildConfig([preset("reference")]).truncatedEpisodes).toBe("train");
    expect(cfg.skills).toEqual(DEFAULT_SKILLS["tool-use"]);
    expect(buildConfig([preset("reference"), { steps: "10" }]).steps).toBe(10);
    expect(Object.keys(PRESETS)).toEqual(["quick", "reference", "reference-tool-use", "local"]);
  });
});

describe("preset local", () => {
  it("runs the default GGUF model in-process, inference only, sized for a laptop; flags override it", () => {
    const cfg = buildConfig([preset("local")]);
    expect([
      cfg.policy,
      cfg.modelPath,
      cfg.train,
      cfg.steps,
      cfg.designsPerStep,
      cfg.regenerateEvery,
      cfg.plays,
      cfg.hintedPlays,
      cfg.maxTokens,
    ]).toEqual([
      "gguf",
      "hf:Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
      false,
      2,
      2,
      2,
      2,
      2,
      256,
    ]);
    expect(buildConfig([preset("local"), { modelPath: "my.gguf" }]).modelPath).toBe("my.gguf");
    expect(() => buildConfig([{ engineBackendConfig: "[1]" }])).toThrow(
      "setting engineBackendConfig (--engine-backend-config): a JSON object",
    );
    expect(() => buildConfig([{ enginePort: "70000" }])).toThrow(
      /setting enginePort \(--engine-port\): at most 65,535/,
    );
  });
});

describe("envPool and envLanguage (issue 17)", () => {
  it("takes a pool folder with --designer off and refuses it or bare rlve otherwise; Python for games and tool use", () => {
    expect(buildConfig([{ designer: "off", envPool: "/data/pool" }]).envPool).toBe("/data/pool");
    expect(buildConfig([{}]).envPool).toBe("library");
    expect(() => buildConfig([{ envPool: "/data/pool" }])).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: expect.stringMatching(
          /^--env-pool \/data\/pool is the pool of the fixed-environment baseline \(add --designer off/,
        ),
      }),
    );
    expect(() => buildConfig([{ designer: "off", envPool: "rlve" }])).toThrow(
      expect.objectContaining({
        code: "E_CONFIG",
        message: expect.stringMatching(/^--env-pool rlve names no RLVE checkout/),
      }),
    );
    const rlve = buildConfig([{ designer: "off", envPool: "rlve:/opt/RLVE#Sorting" }]);
    expect([
      rlve.envPool,
      rlve.difficultyTauAcc,
      rlve.difficultyTauNum,
      rlve.difficultyDDelta,
    ]).toEqual(["rlve:/opt/RLVE#Sorting", 0.9, 128, 4]);
    expect(() =>
      buildConfig([{ designer: "off", envPool: "rlve:/opt/RLVE", difficultyTauAcc: 2 }]),
    ).toThrow(expect.objectContaining({ code: "E_CONFIG" }));
    expect(buildConfig([{ envLanguage: "python" }]).envLanguage).toBe("python");
    const pythonTools = buildConfig([{ envLanguage: "python", mode: "tool-use" }]);
    expect([pythonTools.envLanguage, pythonTools.mode]).toEqual(["python", "tool-use"]);
    expect(() => buildConfig([{ envLanguage: "ruby" }])).toThrow(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });
});

describe("resumeConfig", () => {
  /** A tool-use run stored before `episodeFailures`, `outageAfter`, `lossAggregation` and `gradClipNorm` existed. */
  const old = (() => {
    const {
      episodeFailures: _e,
      outageAfter: _o,
      lossAggregation: _l,
      gradClipNorm: _g,
      ...rest
    } = buildConfig([{ mode: "tool-use", baseUrl: "http://a:8000/v1", steps: 4 }]);
    return rest as RunConfig;
  })();

  it("returns the stored settings as they are when nothing is given", () => {
    expect(resumeConfig(old, {})).toBe(old);
    expect(resumeConfig(old, { steps: undefined })).toBe(old);
  });

  it("applies --steps and the server settings, checked, without deriving the stored ones again", () => {
    const resumed = resumeConfig(old, {
      steps: "6",
      baseUrl: "http://b:9000/v1",
      maxRetries: "9",
      outageAfter: "0",
    });
    expect(resumed).toEqual({
      ...old,
      steps: 6,
      baseUrl: "http://b:9000/v1",
      maxRetries: 9,
      outageAfter: 0,
    });
    // A setting the run began without stays unset (the loop reads it as the old behaviour).
    expect("episodeFailures" in resumed).toBe(false);
    expect(["lossAggregation" in resumed, "gradClipNorm" in resumed]).toEqual([false, false]);
  });

  it("refuses any other setting with E_CONFIG naming its flag", () => {
    expect(() => resumeConfig(old, { plays: "3", steps: "5" })).toThrowError(
      expect.objectContaining({
        code: "E_CONFIG",
        message:
          "a resumed run keeps its settings; only --steps and how the model server is reached (--base-url, --api-key-env, --request-timeout, --retry-budget, --max-retries, --max-answer-bytes, --outage-after) may change (got --plays)",
      }),
    );
  });

  it("refuses a change of the loss aggregation or the gradient clip: they change the training", () => {
    for (const [given, flag] of [
      [{ lossAggregation: "sample-mean" }, "--loss-aggregation"],
      [{ gradClipNorm: "1" }, "--grad-clip-norm"],
      // Even to the value the old run trains with (it has no setting to compare with).
      [{ lossAggregation: "token-sum" }, "--loss-aggregation"],
    ] as const) {
      expect(() => resumeConfig(old, given)).toThrowError(
        expect.objectContaining({
          code: "E_CONFIG",
          message: expect.stringContaining(`(got ${flag})`),
        }),
      );
    }
    const current = buildConfig([{ lossAggregation: "sample-mean", gradClipNorm: "1" }]);
    expect(() => resumeConfig(current, { gradClipNorm: "0" })).toThrowError(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });

  it("checks the given values with the schema", () => {
    expect(() => resumeConfig(old, { maxRetries: "21" })).toThrowError(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
    expect(() => resumeConfig(old, { outageAfter: "-1" })).toThrowError(
      expect.objectContaining({ code: "E_CONFIG" }),
    );
  });
});

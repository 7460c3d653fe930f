/**
 * @module eval/rg/testing/fake-service
 * TEST DOUBLE: a scripted stand-in for the reasoning-gym worker (fixed questions, scores from a
 * table), for tests of the environment and the runner that must not depend on Python.
 */
import type { JsonObject } from "../../../env/index.js";
import type { RgProblem, RgScore, RgService } from "../worker.js";

/** A scripted service: problem `e` asks "Q<e>" with reference "A<e>"; an answer scores `scores[text] ?? 0`. */
export function fakeRgService(scores: Record<string, number>): RgService & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async generate(dataset: string, _config: JsonObject, episode: number): Promise<RgProblem> {
      calls.push(`generate ${dataset} ${episode}`);
      return {
        question: `Q${episode}`,
        index: episode,
        reference: `A${episode}`,
        referenceSource: "answer",
      };
    },
    async score(
      dataset: string,
      _config: JsonObject,
      episode: number,
      text: string,
    ): Promise<RgScore> {
      calls.push(`score ${dataset} ${episode}`);
      const m = /<answer>(.*?)<\/answer>/s.exec(text);
      return { score: scores[text] ?? 0, extracted: m ? (m[1] as string) : null };
    },
  };
}

/**
 * @module policy/testing/fake-tinker
 * TEST DOUBLE: a Tinker sampler talking to the fake Tinker server (test/fakes/tinker-server.ts)
 * with an instant retry clock and no heartbeats.
 */
import {
  startFakeTinkerServer,
  type FakeTinkerOptions,
  type FakeTinkerServer,
} from "../../../test/fakes/tinker-server.js";
import { Limiter } from "../limiter.js";
import { tinkerSampler, type TinkerSampler, type TinkerSamplerOptions } from "../tinker.js";
import { INSTANT_CLOCK } from "./clock.js";

/** The base model the fake serves. */
export const FAKE_BASE_MODEL = "Org/Tiny-1B";

/** Starts the fake server (`fake` as it takes them) and a sampler for it (two requests at once). */
export async function fakeTinkerSampler(
  fake: Omit<FakeTinkerOptions, "baseModel">,
  options: Partial<TinkerSamplerOptions> = {},
): Promise<{ server: FakeTinkerServer; sampler: TinkerSampler }> {
  const server = await startFakeTinkerServer({ baseModel: FAKE_BASE_MODEL, ...fake });
  const sampler = tinkerSampler({
    baseURL: server.baseURL,
    baseModel: FAKE_BASE_MODEL,
    clock: INSTANT_CLOCK,
    heartbeatMs: 0,
    limiter: new Limiter(2),
    ...options,
  });
  return { server, sampler };
}

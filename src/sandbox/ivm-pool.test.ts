import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { IvmProcess, replyFrameBound } from "./ivm-pool.js";
import { SCRIPTED_CHILD_SOURCE } from "./testing/scripted-child.js";

/**
 * What a request came to: its reply, or its error's code and message. Not codeAndMessageOfAsync:
 * calls sent in one batch both resolve and reject, and a reply is asserted as it is.
 */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (reply) => reply,
    (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
  );
}

describe("the wire to a sandbox process (scripted process: a test double)", () => {
  const started: IvmProcess[] = [];
  afterEach(() => {
    for (const p of started.splice(0)) p.kill();
  });

  /** A process running the scripted program, and a `hint` call on it whose arg is `script`. */
  function scripted(): { call(script: string): Promise<unknown>; process: IvmProcess } {
    const process = new IvmProcess(undefined, SCRIPTED_CHILD_SOURCE);
    started.push(process);
    const call = (script: string) =>
      outcome(
        process.request(
          {
            t: "call",
            iid: 1,
            op: "hint",
            arg: JSON.stringify(script),
            maxChars: 1000,
            timeoutMs: 1000,
          },
          "hint",
          1000,
        ),
      );
    return { call, process };
  }

  it("a reply cut short by the process's death fails its own request; those behind it are collateral", async () => {
    const { call, process } = scripted();
    // Sent in one turn: they leave as one batch, answered in order.
    const [first, cut, behind] = await Promise.all([call("ok"), call("half"), call("ok")]);
    expect(first).toEqual({ id: 1, reply: 'R"ok"' });
    expect(cut).toEqual({
      code: "E_SANDBOX_MEMORY",
      message:
        "hint() ran out of memory or stack: the sandbox process died (exit code 7) " +
        "(use less memory or shallower recursion)",
    });
    expect(behind).toEqual({
      code: "E_SANDBOX_DISPOSED",
      message: "hint(): the sandbox process died while running another guest",
    });
    expect(process.dead).toBe(true);
  });

  it("a reply written just before a death settles its request; the death is the next request's", async () => {
    const { call } = scripted();
    const [answered, next] = await Promise.all([call("ok-then-die"), call("ok")]);
    expect(answered).toEqual({ id: 1, reply: 'R"ok"' });
    expect(next).toMatchObject({
      code: "E_SANDBOX_MEMORY",
      message: expect.stringContaining("the sandbox process died (exit code 9)"),
    });
  });

  it("a frame over the bound of its replies ends the process: the running call fails E_SANDBOX_OUTPUT_SIZE", async () => {
    const { call, process } = scripted();
    const [huge, behind] = await Promise.all([call("huge"), call("ok")]);
    const bound = replyFrameBound(1000);
    expect(bound).toBe(77_536);
    expect(huge).toEqual({
      code: "E_SANDBOX_OUTPUT_SIZE",
      message:
        `the sandbox process sent a 2147483647-byte frame, over the ${bound}-byte bound of its ` +
        "replies (return smaller answers (outputBytes); a sandbox process that oversteps is ended)",
    });
    expect(behind).toMatchObject({ code: "E_SANDBOX_DISPOSED" });
    expect(process.dead).toBe(true);
  });

  it("starts at the highest out-of-memory score: the kernel kills it before the host", async () => {
    const { call, process } = scripted();
    expect(await call("ok")).toEqual({ id: 1, reply: 'R"ok"' });
    const adj = (pid: number | string) => readFileSync(`/proc/${pid}/oom_score_adj`, "utf8");
    expect(adj(process.pid ?? "none")).toBe("1000\n");
    expect(Number(adj("self"))).toBeLessThan(1000);
  });

  it("a frame that is not JSON ends the process: E_SANDBOX_THROW", async () => {
    const { call, process } = scripted();
    expect(await call("not-json")).toEqual({
      code: "E_SANDBOX_THROW",
      message: "the sandbox process sent a frame that is not JSON",
    });
    expect(process.dead).toBe(true);
  });
});

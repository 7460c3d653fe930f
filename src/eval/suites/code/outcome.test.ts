import { describe, expect, it } from "vitest";
import { classifyRun, lastExceptionLine, signalOfStatus } from "./outcome.js";

const traceback = (line: string) =>
  `Traceback (most recent call last):\n  File "main.py", line 3, in <module>\n    f()\n${line}\n`;

describe("classifyRun", () => {
  it.each([
    [
      { exitCode: 0, signal: null, timedOut: false, stderr: "" },
      { outcome: "passed", detail: "" },
    ],
    [
      { exitCode: 1, signal: null, timedOut: false, stderr: traceback("AssertionError") },
      { outcome: "failed", detail: "AssertionError" },
    ],
    [
      { exitCode: 1, signal: null, timedOut: false, stderr: traceback("ValueError: bad") },
      { outcome: "error", detail: "ValueError: bad" },
    ],
    [
      { exitCode: 1, signal: null, timedOut: false, stderr: traceback("MemoryError") },
      { outcome: "memory", detail: "MemoryError" },
    ],
    [
      { exitCode: 152, signal: null, timedOut: false, stderr: "" },
      { outcome: "timeout", detail: "CPU limit (SIGXCPU)" },
    ],
    [
      { exitCode: null, signal: "SIGKILL", timedOut: true, stderr: "" },
      { outcome: "timeout", detail: "wall-clock limit" },
    ],
    [
      { exitCode: 139, signal: null, timedOut: false, stderr: "" },
      { outcome: "killed", detail: "SIGSEGV" },
    ],
    [
      {
        exitCode: 1,
        signal: null,
        timedOut: false,
        stderr: traceback("OSError: [Errno 101] Network is unreachable"),
      },
      { outcome: "network", detail: "OSError: [Errno 101] Network is unreachable" },
    ],
    [
      {
        exitCode: 1,
        signal: null,
        timedOut: false,
        stderr: traceback("socket.gaierror: [Errno -3] Temporary failure in name resolution"),
      },
      {
        outcome: "network",
        detail: "socket.gaierror: [Errno -3] Temporary failure in name resolution",
      },
    ],
    [
      { exitCode: 2, signal: null, timedOut: false, stderr: "" },
      { outcome: "error", detail: "exit status 2" },
    ],
    [
      { exitCode: 137, signal: null, timedOut: false, stderr: "", memoryKills: 1 },
      { outcome: "memory", detail: "memory cgroup limit (1 process killed)" },
    ],
    [
      { exitCode: 1, signal: null, timedOut: true, stderr: traceback("OSError"), memoryKills: 3 },
      { outcome: "memory", detail: "memory cgroup limit (3 processes killed)" },
    ],
    [
      // A child killed at the cap, and the program carried on and passed.
      { exitCode: 0, signal: null, timedOut: false, stderr: "", memoryKills: 2 },
      { outcome: "passed", detail: "" },
    ],
  ] as const)("classifies %j", (facts, expected) => {
    expect(classifyRun(facts)).toEqual(expected);
  });

  it("prefers a MemoryError over the limit that hit while freeing memory", () => {
    expect(
      classifyRun({
        exitCode: 152,
        signal: null,
        timedOut: false,
        stderr: traceback("MemoryError"),
      }).outcome,
    ).toBe("memory");
  });
});

describe("helpers", () => {
  it("finds the exception line, not a trailing note", () => {
    expect(lastExceptionLine(`${traceback("KeyError: 'x'")}During handling...\n`)).toBe(
      "KeyError: 'x'",
    );
  });

  it("maps init exit statuses above 128 to signals", () => {
    expect(signalOfStatus(152)).toBe("SIGXCPU");
    expect(signalOfStatus(137)).toBe("SIGKILL");
    expect(signalOfStatus(1)).toBeNull();
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readConfigFile } from "./config/load.js";
import { describeError, ERROR_CODES, isSpadeError, orIoError, SpadeError } from "./errors.js";

describe("SpadeError", () => {
  it("carries its code and appends the next step to the message", () => {
    const err = new SpadeError("E_CONFIG", "--episodes must be an integer", {
      nextStep: "pass a number",
    });
    expect(err.code).toBe("E_CONFIG");
    expect(err.message).toBe("--episodes must be an integer (pass a number)");
    expect(isSpadeError(err, "E_CONFIG")).toBe(true);
    expect(isSpadeError(err, "E_IO")).toBe(false);
    expect(describeError(err)).toBe("E_CONFIG: --episodes must be an integer (pass a number)");
    expect(describeError("plain")).toBe("plain");
  });

  it("every code is documented in docs/errors.md", () => {
    const doc = readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");
    const undocumented = Object.keys(ERROR_CODES).filter((code) => !doc.includes(`\`${code}\``));
    expect(undocumented).toEqual([]);
  });
});

describe("orIoError", () => {
  const boom = new Error("EACCES: permission denied");

  it("returns what the read returns, awaited or not", async () => {
    expect(orIoError(() => 7, "cannot read x", "check x")).toBe(7);
    await expect(
      orIoError(() => Promise.resolve("text"), "cannot read x", "check x"),
    ).resolves.toBe("text");
  });

  it("turns a throw or a rejection into E_IO with the message, next step and cause", async () => {
    const read = () =>
      orIoError(
        () => {
          throw boom;
        },
        "cannot read a.json",
        "check the path",
      );
    expect(read).toThrow(SpadeError);
    expect(read).toThrow(
      expect.objectContaining({
        code: "E_IO",
        message: "cannot read a.json (check the path)",
        nextStep: "check the path",
        cause: boom,
      }),
    );
    await expect(
      orIoError(() => Promise.reject(boom), "cannot list b/", "check its permissions"),
    ).rejects.toMatchObject({
      code: "E_IO",
      message: "cannot list b/ (check its permissions)",
      cause: boom,
    });
  });

  it("is what a config file that cannot be read fails with", () => {
    expect(() => readConfigFile("/nonexistent/spade.json")).toThrow(
      "cannot read config file /nonexistent/spade.json (check the path given to --config)",
    );
  });
});

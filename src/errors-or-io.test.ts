import { describe, expect, it } from "vitest";
import { readConfigFile } from "./config/load.js";
import { orIoError, SpadeError } from "./errors.js";

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

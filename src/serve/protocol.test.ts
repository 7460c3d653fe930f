// How failures read in answers: SPADE's code, then the message.
import { describe, expect, it } from "vitest";
import { SpadeError } from "../errors.js";
import { errorText } from "./protocol.js";

describe("errorText", () => {
  it("puts SPADE's code before the message and beside it; other throws as they are", () => {
    const coded = new SpadeError("E_SANDBOX_TIMEOUT", "step ran past 200 ms", { nextStep: "x" });
    expect(errorText(coded)).toEqual({
      message: "E_SANDBOX_TIMEOUT: step ran past 200 ms (x)",
      spadeCode: "E_SANDBOX_TIMEOUT",
    });
    expect(errorText(new Error("kaboom"))).toEqual({ message: "kaboom" });
    expect(errorText("a string")).toEqual({ message: "a string" });
  });
});

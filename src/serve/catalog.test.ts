// Naming served environments and resolving what `spade serve` was given.
import { describe, expect, it } from "vitest";
import { isSpadeError } from "../errors.js";
import { catalogSources, slug, uniqueNames } from "./catalog.js";

describe("names", () => {
  it("slug keeps lowercase kebab and drops the rest", () => {
    expect([slug("Vault Cracker!"), slug("--a__b--"), slug("¿?"), slug("x".repeat(80)).length]).toEqual(["vault-cracker", "a-b", "env", 64]);
  });

  it("uniqueNames numbers repeats and never takes the server's own /health", () => {
    expect(uniqueNames(["maze", "maze", "Maze", "health"])).toEqual(["maze", "maze-2", "maze-3", "health-2"]);
  });
});

describe("catalogSources", () => {
  it("resolves library names", () => {
    const [s] = catalogSources(["vault-cracker"]);
    expect([s!.name, s!.origin, s!.stats]).toEqual(["vault-cracker", "library", null]);
  });

  it("an unknown reference is E_NOT_FOUND", () => {
    let caught: unknown;
    try {
      catalogSources(["no-such-env-anywhere"]);
    } catch (err) {
      caught = err;
    }
    expect(isSpadeError(caught, "E_NOT_FOUND")).toBe(true);
  });
});

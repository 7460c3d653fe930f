import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configMarkdown } from "./doc.js";

describe("docs/configuration.md", () => {
  it("is the configuration reference generated from the schema (run `npm run docs:config` after changing it)", () => {
    const doc = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    expect(doc).toBe(configMarkdown());
  });
});

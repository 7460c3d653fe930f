// Rewrites docs/configuration.md from the built schema (npm run docs:config).
import { writeFileSync } from "node:fs";
import { configMarkdown } from "../dist/config/doc.js";
writeFileSync(new URL("../docs/configuration.md", import.meta.url), configMarkdown());

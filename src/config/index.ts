/**
 * @module config
 * Public face of run configuration.
 */
export { CONFIG_SCHEMA, DERIVED_KEYS } from "./schema.js";
export type { RawConfig, RunConfig, ConfigKey } from "./schema.js";
export {
  buildConfig,
  resolveConfig,
  readConfigFile,
  resumeConfig,
  RESUME_SERVER_KEYS,
  preset,
  flagName,
  envVar,
  DEFAULT_SKILLS,
  LOCAL_MODEL,
  PRESETS,
} from "./load.js";
export { configFlagHelp, configMarkdown } from "./doc.js";

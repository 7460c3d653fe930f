/**
 * @module config
 * Public face of run configuration.
 */
export { CONFIG_SCHEMA } from "./schema.js";
export type { RawConfig, ConfigKey } from "./schema.js";
export {
  buildConfig,
  resolveConfig,
  DERIVED_KEYS,
  readConfigFile,
  resumeConfig,
  RESUME_SERVER_KEYS,
  preset,
  flagName,
  envVar,
  DEFAULT_SKILLS,
  LOCAL_MODEL,
  PRESETS,
  type RunConfig,
} from "./load.js";
export { configFlagHelp, configMarkdown, shownDefault } from "./doc.js";

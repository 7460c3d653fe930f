/**
 * @module serve/openapi
 * The OpenAPI document each served environment publishes at `/openapi.json`. `openenv validate
 * --url` reads `info.version` and the path set from it (simulation mode: /reset, /step, /state).
 */
import type { JsonObject } from "../env/index.js";
import { schemas } from "./protocol.js";

/** The API version OpenEnv 0.3.0's servers declare; `openenv validate` maps 1.x to `openenv-http/1.x`. */
export const OPENENV_API_VERSION = "1.0.0";

/** The OpenAPI 3.1 document of the environment served under `/<name>`. */
export function openApiDocument(name: string, description: string): JsonObject {
  const s = schemas();
  const json = (schema: JsonObject) => ({ content: { "application/json": { schema } } });
  const observation = {
    type: "object",
    properties: {
      observation: s.observation,
      reward: { type: ["number", "null"] },
      done: { type: "boolean" },
    },
  };
  const get = (summary: string, schema: JsonObject) => ({
    get: { summary, responses: { "200": { description: "OK", ...json(schema) } } },
  });
  return {
    openapi: "3.1.0",
    info: {
      title: `SPADE environment ${name} (OpenEnv HTTP API)`,
      version: OPENENV_API_VERSION,
      description,
    },
    servers: [{ url: `/${name}` }],
    paths: {
      "/reset": {
        post: {
          summary: "Reset the environment (stateless: a fresh instance per request)",
          requestBody: json({
            type: "object",
            properties: {
              seed: { type: "integer", minimum: 0 },
              episode_id: { type: "string" },
              hint: { type: "boolean" },
            },
          }),
          responses: {
            "200": { description: "Initial observation", ...json(observation) },
            "422": { description: "Invalid request" },
          },
        },
      },
      "/step": {
        post: {
          summary: "Execute an action (stateless in OpenEnv; episodes need WS /ws)",
          requestBody: json({
            type: "object",
            properties: {
              action: s.action,
              timeout_s: { type: "number" },
              request_id: { type: "string" },
            },
            required: ["action"],
          }),
          responses: {
            "200": { description: "Observation", ...json(observation) },
            "409": { description: "No episode is running" },
            "422": { description: "Invalid action" },
          },
        },
      },
      "/state": get("Current environment state", s.state),
      "/metadata": get("Environment metadata", {
        type: "object",
        properties: { name: { type: "string" }, description: { type: "string" } },
      }),
      "/health": get("Health check", {
        type: "object",
        properties: { status: { type: "string" } },
      }),
      "/schema": get("Action, observation and state schemas", { type: "object" }),
      "/mcp": {
        post: {
          summary: "MCP JSON-RPC (tools/list, tools/call, openenv/session/create|close)",
          responses: { "200": { description: "JSON-RPC response" } },
        },
      },
    },
  };
}

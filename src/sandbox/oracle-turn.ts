/**
 * @module sandbox/oracle-turn
 * The oracle's turn in one round trip: the source of `oracleStepArg`, which the sandbox process
 * (or QuickJS worker) runs to turn a guest's `solve()` answer into the argument of the `step()`
 * it runs next, so that the host sends both calls at once.
 */
import { extractAnswer, lastBoxed } from "../env/action.js";
import { REPLY_TAGS } from "./prelude.js";

/**
 * Plain JavaScript defining `oracleStepArg(reply, maxChars)`, for the runners' programs. It takes
 * the fast path only: an answer that is exactly `{"text": <string>}` within `maxChars` bytes
 * becomes `{text, answer, toolCalls: []}`, which is what the host's checks (`decodeReply`,
 * `parseGuestJson`, `toOracleAction`) make of that answer, with the host's own `extractAnswer`
 * (its source is copied in). Anything else returns null: the step is not run there, and the
 * host, having checked the answer itself, reports the solve's error or sends the step.
 */
export const ORACLE_STEP_ARG_SOURCE = `${lastBoxed.toString()}
${extractAnswer.toString()}
function oracleStepArg(reply, maxChars) {
  if (typeof reply !== "string" || reply[0] !== ${JSON.stringify(REPLY_TAGS.ok)}) return null;
  const json = reply.slice(1);
  if (json.length * 3 > maxChars && Buffer.byteLength(json, "utf8") > maxChars) return null;
  let value;
  try { value = JSON.parse(json); } catch (e) { return null; }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== "text" || typeof value.text !== "string") return null;
  return JSON.stringify({ text: value.text, answer: extractAnswer(value.text), toolCalls: [] });
}
`;

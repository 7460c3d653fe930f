/**
 * @module eval/acebench/tools
 * An entry's function documents as OpenAI function schemas (upstream writes `dict`, `list` and
 * `float` where JSON Schema says `object`, `array` and `number`), and the few lines of domain
 * rules an agent needs to act in each scenario (paraphrased from upstream's agent prompts).
 */
import type { Json, JsonObject, ToolSpec } from "../../env/index.js";
import type { Lang } from "./api-base.js";
import type { AceEntry, FunctionDoc } from "./data.js";

const TYPE_NAMES: Record<string, string> = {
  dict: "object",
  list: "array",
  tuple: "array",
  float: "number",
  int: "integer",
  bool: "boolean",
  str: "string",
  any: "string",
};

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** One schema node in JSON Schema terms; properties and items are converted recursively. */
export function toJsonSchema(node: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" && typeof value === "string") out.type = TYPE_NAMES[value] ?? value;
    else if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, prop]) => [
          name,
          isObject(prop) ? toJsonSchema(prop) : prop,
        ]),
      );
    } else if (key === "items" && isObject(value)) out.items = toJsonSchema(value);
    else out[key] = value;
  }
  return out;
}

/** A function document as an OpenAI function tool. */
export function toolSpec(doc: FunctionDoc): ToolSpec {
  const parameters = isObject(doc.parameters)
    ? toJsonSchema(doc.parameters)
    : { type: "object", properties: {} };
  if (parameters.type !== "object") parameters.type = "object";
  if (!isObject(parameters.properties)) parameters.properties = {};
  return {
    type: "function",
    function: { name: doc.name, description: doc.description, parameters },
  };
}

/** The entry's tools, in the order its documents list them. */
export function entryTools(entry: AceEntry): ToolSpec[] {
  return entry.functions.map(toolSpec);
}

const RULES = {
  en: {
    phone:
      "You are a phone assistant (current time 2024-06-11 16:00) that sends text messages, manages reminders and orders food delivery. " +
      "Log in to the device with login_device() before reading messages. Sending messages and logging in to the food platform need Wi-Fi. " +
      "Before ordering, get the user's food platform account and password and log in with login_food_platform(). " +
      "If the inbox is full, ask the user which message to delete. Names the user gives are full user names. " +
      "Do not invent information the user or the tools did not give.",
    travel:
      "You are an airline agent (current time 2024-07-15 08:00) who books, modifies and cancels flight reservations. " +
      "Get the user id and password first; search flights before booking; ask for the payment method (cash or bank). " +
      "Free checked bags: regular 1 economy / 2 business, silver 2 / 3, gold 3 / 3; each extra bag costs 50 yuan. " +
      "Confirm the details with the user before any booking or change. A round trip is two bookings; with no direct flight, book the two legs of a connection.",
    calls:
      "Call tools through the function-calling interface, or write the calls as [ApiName(key1='value1', key2='value2')]. " +
      'When the task is complete, reply with "finish conversation".',
    task: "Task:",
  },
  zh: {
    phone:
      "你是一个手机助手（当前时间 2024-06-11 16:00），可以发短信、管理提醒和点外卖。查看短信前先用 login_device() 登录设备；" +
      "发短信和登录外卖平台需要打开 wifi。点外卖前先获取用户的外卖平台账号和密码并用 login_food_platform() 登录。" +
      "短信容量已满时询问用户删除哪一条。用户给出的名字即用户全名。不要编造用户或工具没有提供的信息。",
    travel:
      "你是航空公司的客服（当前时间 2024-07-15 08:00），可以预订、修改和取消航班。先获取用户ID和密码；预订前先查询航班；询问支付方式（cash 或 bank）。" +
      "免费托运行李：regular 经济舱1件/商务舱2件，silver 2/3，gold 3/3；每件额外行李50元。预订或修改前与用户确认细节。" +
      "往返需要预订两个航班；没有直达航班时预订中转的两段航班。",
    calls:
      "通过函数调用接口调用工具，或以 [ApiName(key1='value1', key2='value2')] 的格式写出调用。任务完成后回复 \"finish conversation\"。",
    task: "任务：",
  },
} as const;

/** The rules shown to the agent at the start of an episode. */
export function agentRules(lang: Lang, involvedClasses: readonly string[]): string {
  const r = RULES[lang];
  const domain = involvedClasses.includes("Travel") ? r.travel : r.phone;
  return `${domain}\n${r.calls}`;
}

/** The heading placed before a multi-step task. */
export function taskHeading(lang: Lang): string {
  return RULES[lang].task;
}

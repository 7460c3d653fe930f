/**
 * @module eval/acebench/user
 * The simulated user of multi-turn entries, as an injected interface: the environment passes the
 * dialogue so far and receives the user's next message. A model plays it in real evaluations
 * (the policy layer builds that); `userSimulatorPrompt` gives such a model its instructions.
 */
import type { Lang } from "./api-base.js";
import type { AceEntry } from "./data.js";

/** One message of the agent-user dialogue (tool traffic is not part of it). */
export interface DialogueTurn {
  /** `agent`: what the agent said to the user; `user`: what the user said. */
  role: "agent" | "user";
  content: string;
}

/**
 * Plays the user. `history` starts with the agent's greeting; the reply is the user's next
 * message. A reply containing "finish conversation" ends the episode (after the first exchange),
 * as upstream ends it.
 */
export interface UserSimulator {
  reply(history: readonly DialogueTurn[]): Promise<string>;
}

/** Upstream's fixed opening line, to which the user's first message answers. */
export const AGENT_GREETING: Readonly<Record<Lang, string>> = {
  en: "Is there anything you need help with today?",
  zh: "今天有什么需要帮助的吗？",
};

const PROMPT = {
  en: {
    head: "You are a user talking to an assistant agent. Your instruction:",
    rules: [
      "Write one line per message, as a user would.",
      "Reveal the instruction step by step; give only what the current step needs, but give all of it (e.g. a reminder's title, description and time).",
      "Never invent information the instruction does not contain; say you do not know instead.",
      "Confirm or decline the agent's proposals according to the instruction.",
      "When asked whether you need anything else, continue with any part of the instruction not yet done.",
      "Names in the instruction are full user names. If the agent asks which message to delete, follow the instruction.",
      "If the instruction asks for a round trip, say so at the start.",
      "When everything in the instruction is done, send a line with only 'finish conversation'.",
    ],
  },
  zh: {
    head: "你是与助手agent对话的用户。你的指令：",
    rules: [
      "每次只写一行，像真实用户一样说话。",
      "逐步透露指令内容；只提供当前步骤需要的信息，但要提供完整（例如提醒的标题、描述和时间）。",
      "不要编造指令中没有的信息，不知道就直接说不知道。",
      "根据指令决定是否确认agent的提议。",
      "被问到是否还需要帮助时，如果指令中还有未完成的任务，继续提出。",
      "指令中的名字即用户全名。agent询问删除哪条短信时，按指令要求回答。",
      "如果指令要求预订往返航班，一开始就说明。",
      "指令中的任务全部完成后，单独发送一行 'finish conversation'。",
    ],
  },
} as const;

/** A system prompt for a model that plays the user of `entry` (a paraphrase of upstream's). */
export function userSimulatorPrompt(entry: Pick<AceEntry, "lang" | "question">): string {
  const p = PROMPT[entry.lang];
  return `${p.head}\n${entry.question}\n\n${p.rules.map((r) => `- ${r}`).join("\n")}`;
}

/**
 * @module designer/types
 * What the designer takes in (grounding documents, memory references, example programs) and the
 * messages it sends, shaped so the loop can pass them to any chat backend and store them as they are.
 */

/** One chat message of a designer or hint conversation (a subset of the OpenAI wire shape). */
export type DesignerMessage = { role: "system" | "user" | "assistant"; content: string };

/** A grounding document: one per design attempt. */
export interface GroundingDocument {
  /** Stable id in its corpus, stored with the attempt. */
  docId: string;
  /** The text, already truncated by the grounding sampler. */
  text: string;
}

/** An earlier environment shown to the designer, from memory. */
export interface MemoryReference {
  /** `meta.name`. */
  name: string;
  /** `meta.skill`. */
  skill: string;
  /** `meta.description`. */
  description: string;
  /** Unhinted success rate in [0, 1]. */
  winRate: number;
  /** Mean hinted return minus mean unhinted return. */
  regret: number;
  /** The program; shown when it is short enough (see `DesignerPromptInput.referenceCodeMaxChars`). */
  source?: string | null;
}

/** A library program offered to the designer as a worked example. */
export interface ExampleProgram {
  /** `meta.name`. */
  name: string;
  /** `meta.skill`. */
  skill: string;
  /** The program source. */
  source: string;
  /** `meta.description`, used by dedupe when present. */
  description?: string;
}

/** What a completion function returns: the text, plus whatever the backend adds (tokens, logprobs). */
export interface DesignerCompletion {
  text: string;
}

/** Samples one designer completion for a conversation. Rejections with a SpadeError are recorded as data. */
export type CompleteFn<C extends DesignerCompletion = DesignerCompletion> = (
  messages: readonly DesignerMessage[],
) => Promise<C>;

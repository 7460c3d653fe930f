/**
 * @module dashboard/html
 * HTML built from tagged templates that escape every interpolated value, so text that came from
 * a model (programs, transcripts, names) can never become markup. Only `raw()` passes markup on.
 */

/** Markup that is already safe (built by `html` or `raw`). */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` with `& < > " '` escaped, safe in element content and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** Marks trusted markup (written by this module's callers, never by a model) as safe. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** A template whose interpolations are escaped (arrays are joined, null/undefined/false are empty). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] as string);
  return new SafeHtml(out);
}

/**
 * `value` as JSON inside `<script type="application/json">`: `<`, `>`, `&` and the line
 * separators are written as \u escapes, so no string can close the script element.
 */
export function jsonScript(id: string, value: unknown): SafeHtml {
  const text = JSON.stringify(value ?? null).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return new SafeHtml(`<script type="application/json" id="${escapeHtml(id)}">${text}</script>`);
}

/**
 * @module eval/python/cursor
 * The position over one Python or JSON source string that the literal and call readers share:
 * whitespace, single characters, names, comma-separated items and the E_PARSE failure.
 */
import { SpadeError } from "../../errors.js";

/** Which grammar a source is read in: Python literals and calls, or JSON as `json.loads` reads it. */
export type Mode = "python" | "json";

const NAME_RE = /[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/y;

/** A cursor over one source string: the lexing primitives of the recursive-descent reader. */
export class Cursor {
  pos = 0;
  constructor(
    readonly src: string,
    readonly mode: Mode,
  ) {}

  fail(message: string, at = this.pos): never {
    const snippet = this.src.slice(Math.max(0, at - 20), at + 20);
    throw new SpadeError(
      "E_PARSE",
      `${message} at offset ${at} (near ${JSON.stringify(snippet)})`,
      {
        nextStep: "pass a Python call such as f(a=1, b='x') or a Python/JSON literal",
      },
    );
  }

  /** Matches a sticky regex at the current position without copying the rest of the source. */
  match(re: RegExp): RegExpExecArray | null {
    re.lastIndex = this.pos;
    return re.exec(this.src);
  }

  skipSpace(): void {
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos]!;
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\f") this.pos++;
      else if (ch === "\\" && this.src[this.pos + 1] === "\n") this.pos += 2;
      else break;
    }
  }

  peek(): string {
    this.skipSpace();
    return this.src[this.pos] ?? "";
  }

  eat(ch: string): boolean {
    if (this.peek() === ch) {
      this.pos++;
      return true;
    }
    return false;
  }

  expect(ch: string): void {
    if (!this.eat(ch)) this.fail(`expected '${ch}'`);
  }

  atEnd(): boolean {
    return this.peek() === "";
  }

  /** A name (letters, digits, `_`), optionally dotted; null when none starts here. */
  name(): string | null {
    this.skipSpace();
    const m = this.match(NAME_RE);
    if (!m) return null;
    this.pos += m[0].length;
    return m[0].replace(/\s+/g, "");
  }

  /** Comma-separated items up to `close`, with an optional trailing comma. */
  items(close: string, each: () => void): number {
    let count = 0;
    while (!this.eat(close)) {
      if (this.atEnd()) this.fail(`expected '${close}'`);
      each();
      count++;
      if (!this.eat(",")) {
        this.expect(close);
        break;
      }
    }
    return count;
  }
}

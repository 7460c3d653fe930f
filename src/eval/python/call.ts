/**
 * @module eval/python/call
 * Parsing Python call strings as benchmark ground truth writes them (`cd(folder='document')`,
 * `[f(a=1), g('x')]`) and Python / JSON literals into `PyValue`s, ints kept exact as bigint.
 * Only literals are accepted as arguments: nothing is ever evaluated.
 */
import { SpadeError } from "../../errors.js";
import { PyTuple, isPyKey, type PyDict, type PyKey, type PySet, type PyValue } from "./value.js";

/** One parsed call: `name(*args, **kwargs)`. A dotted name (`obj.method`) is kept whole. */
export interface PyCall {
  name: string;
  args: PyValue[];
  kwargs: Record<string, PyValue>;
}

type Mode = "python" | "json";

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

const NAME_RE = /[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/y;
const RADIX_RE = /0([xXoObB])([0-9a-fA-F_]+)/y;
const NUMBER_RE = /(?:\d[\d_]*)?(?:\.(?:\d[\d_]*)?)?(?:[eE][+-]?\d[\d_]*)?/y;
const PREFIX_RE = /[rRuU](?=['"])/y;

/** Options of `parsePythonCalls`. */
export interface PythonCallsOptions {
  /**
   * Read argument values as the decoders built on Python's `ast` do (ACEBench's `resolve_ast_by_type`):
   * a bare name is its id as a string (`true` -> "true"), a call `g(k=v)` is the dict
   * `{g: {k: v}}`. Default false: only literals.
   */
  astValues?: boolean;
}

/** A recursive-descent reader over one source string. */
class Reader {
  pos = 0;
  constructor(
    readonly src: string,
    readonly mode: Mode,
    readonly options: PythonCallsOptions = {},
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

  value(): PyValue {
    const ch = this.peek();
    if (ch === "[") return this.list();
    if (ch === "(") return this.tupleOrGroup();
    if (ch === "{") return this.dictOrSet();
    if (ch === "-" || ch === "+") return this.signed();
    if (/[0-9.]/.test(ch)) return this.number();
    if (ch === "'" || ch === '"') return this.strings();
    const start = this.pos;
    const word = this.name();
    if (word === null)
      this.fail(ch === "" ? "unexpected end of input" : `unexpected character '${ch}'`);
    const next = this.src[this.pos] ?? "";
    if ((next === "'" || next === '"') && /^[rRuU]$/.test(word)) {
      return this.strings(word.toLowerCase() === "r", start);
    }
    if (this.mode === "python") {
      if (word === "True") return true;
      if (word === "False") return false;
      if (word === "None") return null;
    } else {
      if (word === "true") return true;
      if (word === "false") return false;
      if (word === "null") return null;
      if (word === "NaN") return NaN;
      if (word === "Infinity") return Infinity;
    }
    if (this.options.astValues) {
      // ast.Call: {name: {keyword: value}} (positional arguments dropped); ast.Name: its id.
      if (this.peek() === "(") {
        const call = this.callArgs(word.replace(/\s+/g, ""), start);
        return new Map<PyKey, PyValue>([
          [call.name, new Map<PyKey, PyValue>(Object.entries(call.kwargs))],
        ]);
      }
      if (!word.includes(".")) return word;
    }
    if (this.peek() === "(") this.fail(`a call (${word}) is not allowed as a value`, start);
    return this.fail(`unknown name '${word}'`, start);
  }

  signed(): PyValue {
    const start = this.pos;
    const negative = this.src[this.pos] === "-";
    this.pos++;
    const v = this.value();
    if (typeof v === "bigint") return negative ? -v : v;
    if (typeof v === "number") return negative ? -v : v;
    if (typeof v === "boolean") return negative ? (v ? -1n : 0n) : v ? 1n : 0n;
    return this.fail("a sign needs a number", start);
  }

  number(): bigint | number {
    this.skipSpace();
    const radix = this.match(RADIX_RE);
    if (radix && this.mode === "python") {
      this.pos += radix[0].length;
      const prefix = { x: "0x", o: "0o", b: "0b" }[radix[1]!.toLowerCase() as "x" | "o" | "b"];
      try {
        return BigInt(prefix + radix[2]!.replace(/_/g, ""));
      } catch {
        return this.fail(`invalid number literal '${radix[0]}'`);
      }
    }
    const m = this.match(NUMBER_RE);
    const text = m ? m[0] : "";
    if (text === "" || text === "." || !/\d/.test(text)) this.fail("invalid number literal");
    if (/_(_|$|\.|[eE])|\._|[eE]_/.test(text)) this.fail(`invalid number literal '${text}'`);
    this.pos += text.length;
    if (/^[jJlL]/.test(this.src[this.pos] ?? ""))
      this.fail("complex and long literals are not supported");
    const clean = text.replace(/_/g, "");
    if (/[.eE]/.test(clean)) return Number(clean);
    if (clean.length > 1 && clean.startsWith("0") && /[1-9]/.test(clean)) {
      this.fail(`leading zeros in a decimal integer literal '${text}' are not permitted`);
    }
    return BigInt(clean);
  }

  /** One or more adjacent string literals, concatenated as Python does. */
  strings(raw = false, start = this.pos): string {
    let out = this.stringLiteral(raw, start);
    for (;;) {
      const save = this.pos;
      const ch = this.peek();
      if (ch === "'" || ch === '"') {
        out += this.stringLiteral(false, this.pos);
        continue;
      }
      const word = this.match(PREFIX_RE);
      if (word && this.mode === "python") {
        this.pos += 1;
        out += this.stringLiteral(word[0].toLowerCase() === "r", this.pos - 1);
        continue;
      }
      this.pos = save;
      return out;
    }
  }

  stringLiteral(raw: boolean, start: number): string {
    this.skipSpace();
    const q = this.src[this.pos]!;
    if (this.mode === "json" && q !== '"') this.fail("JSON strings use double quotes");
    const triple = this.mode === "python" && this.src.startsWith(q.repeat(3), this.pos);
    const close = triple ? q.repeat(3) : q;
    this.pos += close.length;
    let out = "";
    for (;;) {
      if (this.pos >= this.src.length) this.fail("unterminated string literal", start);
      if (this.src.startsWith(close, this.pos)) {
        this.pos += close.length;
        return out;
      }
      const ch = this.src[this.pos]!;
      if (ch === "\n" && !triple) this.fail("unterminated string literal (newline)", start);
      if (ch !== "\\") {
        out += ch;
        this.pos++;
        continue;
      }
      const esc = this.src[this.pos + 1] ?? "";
      if (raw) {
        out += ch + esc;
        this.pos += 2;
        continue;
      }
      this.pos += 2;
      out += this.escape(esc);
    }
  }

  escape(esc: string): string {
    if (esc === "\n") return "";
    if (this.mode === "json" && esc === "/") return "/";
    const simple = SIMPLE_ESCAPES[esc];
    if (simple !== undefined && (this.mode === "python" || !"'av".includes(esc))) return simple;
    if (esc === "x" || esc === "u" || esc === "U") {
      const width = esc === "x" ? 2 : esc === "u" ? 4 : 8;
      const digits = this.src.slice(this.pos, this.pos + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits))
        this.fail(`truncated \\${esc} escape`);
      this.pos += width;
      const cp = parseInt(digits, 16);
      if (cp > 0x10ffff) this.fail(`illegal Unicode character \\${esc}${digits}`);
      return String.fromCodePoint(cp);
    }
    if (this.mode === "python" && /[0-7]/.test(esc)) {
      let digits = esc;
      while (digits.length < 3 && /[0-7]/.test(this.src[this.pos] ?? ""))
        digits += this.src[this.pos++];
      return String.fromCodePoint(parseInt(digits, 8));
    }
    if (esc === "N") this.fail("\\N{...} escapes are not supported");
    if (this.mode === "json") this.fail(`invalid JSON escape \\${esc}`);
    // Python keeps unknown escapes as they are.
    return `\\${esc}`;
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

  list(): PyValue[] {
    this.expect("[");
    const out: PyValue[] = [];
    this.items("]", () => out.push(this.value()));
    return out;
  }

  tupleOrGroup(): PyValue {
    if (this.mode === "json") this.fail("unexpected '('");
    this.expect("(");
    if (this.eat(")")) return new PyTuple([]);
    const first = this.value();
    if (this.eat(")")) return first;
    this.expect(",");
    const out: PyValue[] = [first];
    this.items(")", () => out.push(this.value()));
    return new PyTuple(out);
  }

  dictOrSet(): PyDict | PySet {
    this.expect("{");
    if (this.eat("}")) return new Map();
    const start = this.pos;
    const first = this.value();
    if (this.eat(":")) {
      const dict: PyDict = new Map();
      dict.set(this.key(first, start), this.value());
      if (this.eat(",")) {
        this.items("}", () => {
          const at = this.pos;
          const k = this.value();
          this.expect(":");
          dict.set(this.key(k, at), this.value());
        });
      } else this.expect("}");
      return dict;
    }
    if (this.mode === "json") this.fail("expected ':'");
    const set: PySet = new Set([this.key(first, start)]);
    if (this.eat(",")) {
      this.items("}", () => {
        const at = this.pos;
        set.add(this.key(this.value(), at));
      });
    } else this.expect("}");
    return set;
  }

  key(v: PyValue, at: number): PyKey {
    if (this.mode === "json" && typeof v !== "string")
      this.fail("JSON object keys are strings", at);
    if (!isPyKey(v)) this.fail("only str, int, float, bool and None keys are supported", at);
    return v;
  }

  /** `name(args, kw=value)` after the name has been read. */
  callArgs(name: string, start: number): PyCall {
    this.expect("(");
    const args: PyValue[] = [];
    const kwargs: Array<[string, PyValue]> = [];
    const seen = new Set<string>();
    this.items(")", () => {
      const save = this.pos;
      const word = this.name();
      if (
        word !== null &&
        !word.includes(".") &&
        this.peek() === "=" &&
        this.src[this.pos + 1] !== "="
      ) {
        this.pos++;
        if (seen.has(word)) this.fail(`keyword argument repeated: ${word}`, save);
        seen.add(word);
        kwargs.push([word, this.value()]);
        return;
      }
      this.pos = save;
      if (kwargs.length > 0) this.fail("positional argument follows keyword argument");
      args.push(this.value());
    });
    if (name === "") this.fail("missing function name", start);
    return { name, args, kwargs: Object.fromEntries(kwargs) };
  }

  call(): PyCall {
    this.skipSpace();
    const start = this.pos;
    const name = this.name();
    if (name === null) this.fail("expected a function name");
    if (this.peek() !== "(") this.fail(`expected '(' after '${name}'`);
    return this.callArgs(name, start);
  }
}

/** Reads `src` whole with `read`; text left after it fails E_PARSE ("unexpected text after `what`"). */
function readWhole<T>(
  src: string,
  mode: Mode,
  what: string,
  read: (r: Reader) => T,
  options: PythonCallsOptions = {},
): T {
  const r = new Reader(src, mode, options);
  const v = read(r);
  if (!r.atEnd()) r.fail(`unexpected text after ${what}`);
  return v;
}

/**
 * Parses one Python call (`f(1, x='a')`) or a list of calls (`[f(a=1), g(b=2)]`).
 * Throws SpadeError E_PARSE on anything else (nested calls, expressions, trailing text).
 */
export function parsePythonCalls(src: string, options: PythonCallsOptions = {}): PyCall[] {
  return readWhole(
    src,
    "python",
    "the call",
    (r) => {
      if (!r.eat("[")) return [r.call()];
      const calls: PyCall[] = [];
      r.items("]", () => calls.push(r.call()));
      return calls;
    },
    options,
  );
}

/** Parses exactly one Python call string. */
export function parsePythonCall(src: string): PyCall {
  return readWhole(src, "python", "the call", (r) => r.call());
}

/** Parses one Python literal (`{'a': [1, 2.5, None]}`, `(1,)`, `-3`, `'x'`). */
export function parsePythonLiteral(src: string): PyValue {
  return readWhole(src, "python", "the literal", (r) => r.value());
}

/**
 * Parses JSON text the way Python's `json.loads` types it: `1` is an int (bigint), `1.0` and
 * `1e5` are floats, objects become dicts. Also accepts NaN and Infinity as Python does.
 */
export function parseJsonPy(src: string): PyValue {
  return readWhole(src, "json", "the JSON value", (r) => r.value());
}

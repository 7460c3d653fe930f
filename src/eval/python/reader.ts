/**
 * @module eval/python/reader
 * The recursive-descent reader of Python / JSON values and calls: scalars, lists, tuples, dicts,
 * sets and `name(args, kw=value)`, over the shared cursor and literal tokens.
 */
import type { PyCall, PythonCallsOptions } from "./call.js";
import { Cursor, type Mode } from "./cursor.js";
import { readNumber, readStrings } from "./literal-tokens.js";
import { PyTuple, isPyKey, type PyDict, type PyKey, type PySet, type PyValue } from "./value.js";

/**
 * Deepest nesting of brackets and signs read. Each level is a few JS frames, so 20,000 opening
 * brackets in a model's call overflowed the stack with a RangeError that no caller expects; past
 * this the input fails to parse (E_PARSE) as Python's own limits would refuse it (200 open
 * brackets in source, about 1,000 levels in `json`).
 */
export const MAX_NESTING = 1000;

/** A recursive-descent reader over one source string. */
export class Reader extends Cursor {
  private depth = 0;

  constructor(
    src: string,
    mode: Mode,
    readonly options: PythonCallsOptions = {},
  ) {
    super(src, mode);
  }

  value(): PyValue {
    if (this.depth >= MAX_NESTING) this.fail(`nesting deeper than ${MAX_NESTING} levels`);
    this.depth++;
    const v = this.valueAtDepth();
    this.depth--;
    return v;
  }

  private valueAtDepth(): PyValue {
    const ch = this.peek();
    if (ch === "[") return this.list();
    if (ch === "(") return this.tupleOrGroup();
    if (ch === "{") return this.dictOrSet();
    if (ch === "-" || ch === "+") return this.signed();
    if (/[0-9.]/.test(ch)) return readNumber(this);
    if (ch === "'" || ch === '"') return readStrings(this);
    const start = this.pos;
    const word = this.name();
    if (word === null)
      this.fail(ch === "" ? "unexpected end of input" : `unexpected character '${ch}'`);
    const next = this.src[this.pos] ?? "";
    if ((next === "'" || next === '"') && /^[rRuU]$/.test(word)) {
      return readStrings(this, word.toLowerCase() === "r", start);
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

/**
 * @module eval/bfcl/single/render
 * Python values written as Java or JavaScript source text, the way a model writes a Java or
 * JavaScript argument (every such argument is a string): what the oracle and tests hand out.
 */
import { type PyDict, type PyKey, pyRepr, type PyValue } from "../../python/index.js";
import type { BfclLanguage, SingleFunctionDoc } from "./ast-checker.js";

/** One value as source text; `type` is the parameter's Java/JavaScript type name. */
export function renderSource(
  v: PyValue,
  lang: BfclLanguage,
  type: string | undefined,
  inner = false,
): string {
  if (typeof v === "string") return inner ? JSON.stringify(v) : v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return lang === "java" && type === "long" ? `${v}L` : String(v);
  if (typeof v === "number")
    return lang === "java" && type === "float" ? `${pyRepr(v)}f` : pyRepr(v);
  if (Array.isArray(v)) {
    const items = v.map((x) => renderSource(x, lang, undefined, true)).join(", ");
    if (lang === "javascript") return `[${items}]`;
    return type === "Array" ? `new Object[]{${items}}` : `new ArrayList<>(Arrays.asList(${items}))`;
  }
  if (v instanceof Map) {
    if (lang === "javascript")
      return `{${[...v].map(([k, x]) => `'${String(k)}': ${renderSource(x, lang, undefined, true)}`).join(", ")}}`;
    return `new HashMap<String, Object>() {{ ${[...v].map(([k, x]) => `put("${String(k)}", ${renderSource(x, lang, undefined, true)});`).join(" ")} }}`;
  }
  return String(v);
}

/** Every argument of every call written as source text, typed by the function documents. */
export function renderOutput(
  output: PyValue[],
  docs: SingleFunctionDoc[],
  lang: BfclLanguage,
): PyValue[] {
  return output.map((call) => {
    if (!(call instanceof Map)) return call;
    return new Map(
      [...call].map(([name, args]) => {
        const doc = docs.find((d) => d.name === name);
        if (!(args instanceof Map)) return [name, args] as [PyKey, PyValue];
        const typed: PyDict = new Map(
          [...args].map(([k, x]) => [
            k,
            renderSource(
              x,
              lang,
              doc?.parameters.properties[k as string]?.type as string | undefined,
            ),
          ]),
        );
        return [name, typed] as [PyKey, PyValue];
      }),
    ) as PyDict;
  });
}

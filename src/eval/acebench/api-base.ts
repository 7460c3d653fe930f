/**
 * @module eval/acebench/api-base
 * The shape every ported ACEBench API class shares (public methods with Python signatures,
 * `_load_scenario`, instance attributes) and the phone platform's `BaseApi` (Wi-Fi and device
 * login), which `MessageApi`, `ReminderApi` and `FoodPlatform` inherit as upstream does.
 */
import * as py from "../python/index.js";
import type { PyDict, PyKey, PyValue } from "../python/index.js";

/** `{"status": status, "message": message}`, the answer most phone methods give. */
export function statusMessage(status: boolean, message: string): PyDict {
  return new Map<PyKey, PyValue>([
    ["status", status],
    ["message", message],
  ]);
}

/** The two languages of the benchmark; they differ in texts and in a few behaviours. */
export type Lang = "en" | "zh";

/** The API classes an entry can involve. */
export const API_CLASS_NAMES = [
  "BaseApi",
  "MessageApi",
  "ReminderApi",
  "FoodPlatform",
  "Travel",
] as const;

/** One of `API_CLASS_NAMES`. */
export type ApiClassName = (typeof API_CLASS_NAMES)[number];

/** One parameter of a public method: a name, or a name with its default value. */
export type Param = string | readonly [string, PyValue];

/** A public method: the Python class that defines it, its parameters and its body. */
export interface MethodDef {
  /** The defining class, as Python names it in `TypeError` messages (`BaseApi.turn_on_wifi()`). */
  owner: string;
  /** Parameters in signature order. */
  params: readonly Param[];
  /** The body; receives the bound arguments in signature order. */
  run: (...args: PyValue[]) => PyValue;
}

/** A builder of `owner`'s public methods: `m(params, run)`. */
export function methodsOf(owner: string): (params: Param[], run: MethodDef["run"]) => MethodDef {
  return (params, run) => ({ owner, params, run });
}

/** A ported API class instance. */
export abstract class AceApi {
  /** The Python class name. */
  abstract readonly className: ApiClassName;

  constructor(
    /** Which language's texts and behaviours this instance has. */
    readonly lang: Lang,
  ) {}

  /** Public methods by name (what upstream's `inspect.getmembers` finds). */
  abstract methods(): Record<string, MethodDef>;

  /** Python's `_load_scenario(scenario)`. */
  abstract loadScenario(scenario: PyDict): void;

  /** Instance attributes in `__dict__` order. */
  abstract attributes(): Array<[string, PyValue]>;
}

function quoteList(names: string[]): string {
  const quoted = names.map((n) => `'${n}'`);
  if (quoted.length <= 2) return quoted.join(" and ");
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted[quoted.length - 1]}`;
}

/**
 * Calls `name` on `api` with keyword arguments, binding them as Python does: an unknown keyword
 * or a missing required parameter raises `TypeError` with CPython's message.
 */
export function invoke(
  api: AceApi,
  name: string,
  kwargs: ReadonlyArray<readonly [string, PyValue]>,
): PyValue {
  const method = api.methods()[name];
  if (!method)
    throw new py.PyException(
      "AttributeError",
      `'${api.className}' object has no attribute '${name}'`,
    );
  const qualname = `${method.owner}.${name}()`;
  const names = method.params.map((p) => (typeof p === "string" ? p : p[0]));
  const given = new Map<string, PyValue>();
  for (const [key, value] of kwargs) {
    if (!names.includes(key))
      throw new py.PyException(
        "TypeError",
        `${qualname} got an unexpected keyword argument '${key}'`,
      );
    given.set(key, value);
  }
  const missing = method.params.filter((p) => typeof p === "string" && !given.has(p)) as string[];
  if (missing.length > 0) {
    const s = missing.length === 1 ? "" : "s";
    throw new py.PyException(
      "TypeError",
      `${qualname} missing ${missing.length} required positional argument${s}: ${quoteList(missing)}`,
    );
  }
  const args = method.params.map((p) =>
    typeof p === "string"
      ? (given.get(p) as PyValue)
      : given.has(p[0])
        ? (given.get(p[0]) as PyValue)
        : p[1],
  );
  return method.run(...args);
}

/** The messages of a phone app's delete-by-id method. */
export interface DeleteText {
  deleteNotLoggedIn: string;
  noSuchId: string;
  deleted: (id: string) => string;
}

const BASE_TEXT = {
  en: { wifiOn: "Wi-Fi has been turned on", loggedIn: "Device has been logged in" },
  zh: { wifiOn: "wifi已经打开", loggedIn: "设备已经登录" },
} as const;

/** The phone platform's base: a Wi-Fi switch and a device login shared by the phone apps. */
export class BaseApi extends AceApi {
  readonly className: ApiClassName = "BaseApi";
  /** Wi-Fi on. Default False. */
  wifi: PyValue = false;
  /** Device logged in. Default True. */
  logged_in: PyValue = true;

  override loadScenario(scenario: PyDict): void {
    this.wifi = py.getOr(scenario, "wifi", false);
    this.logged_in = py.getOr(scenario, "logged_in", true);
  }

  override attributes(): Array<[string, PyValue]> {
    return [
      ["wifi", this.wifi],
      ["logged_in", this.logged_in],
    ];
  }

  override methods(): Record<string, MethodDef> {
    return this.baseMethods();
  }

  /** Upstream's `if self.logged_in == False` guard of the phone apps. */
  protected loggedOut(): boolean {
    return py.pyEquals(this.logged_in, false);
  }

  /**
   * The phone apps' delete-by-id: refused when logged out or when `id` is not a key of `store`,
   * else the entry is removed. `text` holds the app's messages.
   */
  protected deleteById(store: PyDict, id: PyValue, text: DeleteText): PyDict {
    if (this.loggedOut()) return statusMessage(false, text.deleteNotLoggedIn);
    if (!py.contains(store, id)) return statusMessage(false, text.noSuchId);
    py.dictDelete(store, py.hashKey(id));
    return statusMessage(true, text.deleted(py.pyStr(id)));
  }

  /** The two methods every phone app inherits. */
  protected baseMethods(): Record<string, MethodDef> {
    const text = BASE_TEXT[this.lang];
    const m = methodsOf("BaseApi");
    return {
      turn_on_wifi: m([], () => {
        this.wifi = true;
        return statusMessage(true, text.wifiOn);
      }),
      login_device: m([], () => {
        this.logged_in = true;
        return statusMessage(true, text.loggedIn);
      }),
    };
  }
}

/**
 * @module eval/bfcl/session
 * What the API instances of one evaluated entry share, as module-level Python objects are
 * shared: mutable default arguments, the long-context padding data, and the clock.
 */
import { SpadeError } from "../../errors.js";
import { deepCopy, type PyDict, type PyValue } from "../python/index.js";

/** Options of a session. */
export interface BfclSessionOptions {
  /**
   * Loads the long-context constants (`long_context_data.json` as Python values). Called at
   * most once per session, on the first long-context access.
   */
  loadLongContext?: () => PyDict;
  /** Today's date for age checks (`datetime.today()`); default: the real clock. */
  today?: () => Date;
}

/**
 * One evaluation's shared Python module state. Upstream keeps these as module globals for the
 * whole process; here they live per entry, so entries cannot leak into each other while the
 * model's and the ground truth's instances of the same entry still share them as in Python.
 */
export class BfclSession {
  private readonly defaults = new Map<string, PyValue>();
  private longContext: PyDict | undefined;

  constructor(private readonly options: BfclSessionOptions = {}) {}

  /** The one shared default object for `key` (`Class.method.param`), made on first use. */
  sharedDefault(key: string, make: () => PyValue): PyValue {
    if (!this.defaults.has(key)) this.defaults.set(key, make());
    return this.defaults.get(key)!;
  }

  /** The session's own copy of a long-context constant (e.g. `CREDIT_CARD_EXTENSION`). */
  longContextValue(name: string): PyValue {
    if (!this.longContext) {
      if (!this.options.loadLongContext) {
        throw new SpadeError("E_CONFIG", "this BFCL session has no long-context data", {
          nextStep: "create the session with loadLongContext (see loadLongContextData)",
        });
      }
      this.longContext = deepCopy(this.options.loadLongContext());
    }
    const value = this.longContext.get(name);
    if (value === undefined)
      throw new SpadeError("E_NOT_FOUND", `long-context data has no ${name}`);
    return value;
  }

  /** Today's date. */
  today(): Date {
    return this.options.today ? this.options.today() : new Date();
  }
}

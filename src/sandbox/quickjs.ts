/**
 * @module sandbox/quickjs
 * The portable backend: QuickJS compiled to WebAssembly (quickjs-emscripten-core 0.32.0 with the
 * release-sync wasm file), one WebAssembly instance per guest. Guarantees: the guest's whole
 * world is its own `WebAssembly.Memory` whose `maximum` is fixed (16 MiB base + `memoryBytes`),
 * so it cannot grow past that whatever QuickJS's allocator accounting says (its
 * `setMemoryLimit` alone was measured letting a shared module grow to 2 GiB); `setMemoryLimit`
 * and a 256 KiB stack cap make it fail early and cleanly ("out of memory" / "stack overflow");
 * every call runs under an interrupt-handler deadline (uncatchable: `catch`/`finally` do not
 * run; regular expressions are interrupted too); no host functions are exposed; pending promise
 * jobs are never run, so `import()` and `.then` callbacks never execute. Runs on the host's
 * thread: a call blocks the event loop until it returns or its deadline passes. The deadline is
 * polled by the interpreter, so time spent inside one engine operation is not cut: measured
 * overshoots at a 16 MiB heap were ~1 s (recursion catching its stack overflows) and ~1.6 s
 * (a loop swallowing out-of-memory errors, each retry running a full GC); `Proxy` is removed by
 * the prelude because its `ownKeys` check is quadratic native code (29 s for 400k keys), but
 * generic array methods on a huge array-like `length` still loop natively (docs/sandbox.md). Measured on 2 shared
 * cores: ~80k echo steps/s for one episode; loading a program takes ~6 ms.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSSyncVariant } from "quickjs-emscripten-core";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { SpadeError } from "../errors.js";
import { PRELUDE_SOURCE, REPLY_TAGS } from "./prelude.js";
import {
  asLoadError,
  checkTimeoutMs,
  compileError,
  decodeReply,
  disposedError,
  memoryError,
  timeoutError,
  type GlueOp,
} from "./protocol.js";
import type { GuestMethod, SandboxBackend, SandboxInstance, SandboxLimits } from "./types.js";

const WASM_PAGE_BYTES = 64 * 1024;
/** The module's declared minimum memory (emscripten's INITIAL_MEMORY, 16 MiB). */
const BASE_PAGES = 256;
/** WebAssembly's 4 GiB ceiling, in pages. */
const MAX_PAGES = 65536;
/** The glue's reply for a thrown `null` (tag "E" + the description "null"). */
const THROWN_NULL = `${REPLY_TAGS.threw}null`;
/** QuickJS stack cap: deep recursion ends with "stack overflow", not a wasm trap. */
const MAX_STACK_BYTES = 256 * 1024;

type CoreModule = typeof import("quickjs-emscripten-core");
interface Loaded {
  core: CoreModule;
  variant: QuickJSSyncVariant;
  wasmModule: object;
}

/** The WebAssembly global, typed here (opaquely) because the project's `lib` declares none. */
const wasmApi = (globalThis as unknown as {
  WebAssembly: {
    compile(bytes: Uint8Array): Promise<object>;
    Memory: new (descriptor: { initial: number; maximum: number }) => object;
  };
}).WebAssembly;

let loaded: Promise<Loaded> | undefined;

/** Loads the library and compiles the wasm file once per process; each guest instantiates it. */
function load(): Promise<Loaded> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const [core, variantModule, bytes] = await Promise.all([
      import("quickjs-emscripten-core"),
      import("@jitl/quickjs-wasmfile-release-sync"),
      readFile(require.resolve("@jitl/quickjs-wasmfile-release-sync/wasm")),
    ]);
    const wasmModule = await wasmApi.compile(bytes);
    return { core, variant: variantModule.default, wasmModule };
  })();
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

/** The `message` (and `name`) of an exception handle that escaped the glue. */
function escapedText(vm: QuickJSContext, error: QuickJSHandle): string {
  try {
    const read = (key: string): string => {
      const h = vm.getProp(error, key);
      try {
        return vm.typeof(h) === "string" ? vm.getString(h) : "";
      } finally {
        h.dispose();
      }
    };
    return `${read("name")}: ${read("message")}`;
  } catch {
    return "unreadable exception";
  }
}

/** Maps an exception that escaped guest code (the glue catches all catchable ones). */
function classifyEscape(op: GlueOp, text: string, timeoutMs: number): SpadeError {
  if (text.endsWith(": interrupted")) return timeoutError(op, timeoutMs);
  if (/out of memory|stack overflow/.test(text)) return memoryError(op, text);
  return new SpadeError("E_SANDBOX_THROW", `${op}: the QuickJS runtime failed: ${text}`);
}

/** One QuickJS runtime (in its own wasm instance) holding one `Environment` instance. */
class QuickJsInstance implements SandboxInstance {
  #runtime: QuickJSRuntime;
  #vm: QuickJSContext;
  #glue: QuickJSHandle;
  #outputBytes: number;
  #disposed = false;

  constructor(runtime: QuickJSRuntime, vm: QuickJSContext, glue: QuickJSHandle, outputBytes: number) {
    this.#runtime = runtime;
    this.#vm = vm;
    this.#glue = glue;
    this.#outputBytes = outputBytes;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  async call(method: GuestMethod, argJson: string | null, timeoutMs: number): Promise<string> {
    return this.invoke(method, argJson, timeoutMs);
  }

  /** Calls the glue; any fatal outcome disposes the guest before throwing. */
  invoke(op: GlueOp, argJson: string | null, timeoutMs: number): string {
    if (this.#disposed) throw disposedError(op);
    checkTimeoutMs(timeoutMs);
    const vm = this.#vm;
    const deadline = Date.now() + timeoutMs;
    this.#runtime.setInterruptHandler(() => Date.now() > deadline);
    let reply: unknown;
    try {
      const args = [vm.newString(op), argJson === null ? vm.null : vm.newString(argJson), vm.newNumber(this.#outputBytes)];
      const result = vm.callFunction(this.#glue, vm.undefined, ...args);
      for (const h of args) h.dispose();
      if (result.error) {
        const text = escapedText(vm, result.error);
        result.error.dispose();
        throw classifyEscape(op, text, timeoutMs);
      }
      reply = vm.typeof(result.value) === "string" ? vm.getString(result.value) : undefined;
      result.value.dispose();
    } catch (err) {
      this.dispose();
      if (err instanceof SpadeError) throw err;
      // A wasm trap or abort inside QuickJS: the module is dead. Running out of wasm memory is
      // the cause we know of.
      throw memoryError(op, `the QuickJS runtime crashed: ${String(err)}`);
    }
    if (!this.#disposed) this.#runtime.removeInterruptHandler();
    const decoded = decodeReply(reply, op, this.#outputBytes);
    if (decoded.ok) return decoded.json;
    if (reply === THROWN_NULL) {
      // QuickJS running out of memory while building its own "out of memory" error leaves a bare
      // `null` as the exception; a program that throws null on purpose is classified the same.
      this.dispose();
      throw memoryError(op, "the guest threw null (QuickJS's sign of running out of memory while throwing)");
    }
    if (decoded.fatal) this.dispose();
    throw decoded.error;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    try {
      this.#glue.dispose();
      this.#vm.dispose();
      this.#runtime.dispose();
    } catch {
      // A crashed runtime may fail its own teardown; its memory goes with the wasm instance.
    }
  }
}

/** Runs the program's top level as a script; maps an escaped exception to a load error. */
function runTopLevel(vm: QuickJSContext, source: string, timeoutMs: number): void {
  const result = vm.evalCode(source, "environment.js", { type: "global" });
  if (result.error) {
    const text = escapedText(vm, result.error);
    result.error.dispose();
    if (text.endsWith(": interrupted")) throw timeoutError("init", timeoutMs);
    if (/out of memory|stack overflow/.test(text)) throw memoryError("init", text);
    throw compileError(text);
  }
  result.value.dispose();
}

/** The QuickJS backend. */
export const quickJsBackend: SandboxBackend = {
  name: "quickjs",
  async create(source: string, limits: SandboxLimits): Promise<SandboxInstance> {
    const { core, variant, wasmModule } = await load();
    const maximum = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(limits.memoryBytes / WASM_PAGE_BYTES));
    const wasmMemory = new wasmApi.Memory({ initial: BASE_PAGES, maximum });
    const module = await core.newQuickJSWASMModuleFromVariant(core.newVariant(variant, { wasmModule, wasmMemory }));
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    const vm = runtime.newContext();
    // One budget for the prelude, the program's top level and the constructor.
    const deadline = Date.now() + limits.compileTimeoutMs;
    const remainingMs = (): number => Math.max(1, deadline - Date.now());
    runtime.setInterruptHandler(() => Date.now() > deadline);
    let glue: QuickJSHandle | undefined;
    try {
      const prelude = vm.evalCode(PRELUDE_SOURCE, "spade-prelude.js", { type: "global" });
      if (prelude.error) {
        const text = escapedText(vm, prelude.error);
        prelude.error.dispose();
        throw new SpadeError("E_SANDBOX_THROW", `the sandbox prelude failed: ${text}`);
      }
      glue = prelude.value;
      runTopLevel(vm, source, limits.compileTimeoutMs);
    } catch (err) {
      try {
        glue?.dispose();
        vm.dispose();
        runtime.dispose();
      } catch {
        // See QuickJsInstance.dispose.
      }
      throw err;
    }
    const instance = new QuickJsInstance(runtime, vm, glue, limits.outputBytes);
    try {
      instance.invoke("init", null, remainingMs());
    } catch (err) {
      instance.dispose();
      throw asLoadError(err);
    }
    return instance;
  },
};

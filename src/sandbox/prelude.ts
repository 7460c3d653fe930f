/**
 * @module sandbox/prelude
 * The guest-side prelude shared by every backend: it removes what a guest must not have, fixes the
 * clock, installs a seeded `Math.random`, and evaluates to the glue function the host calls.
 */

/** 2024-01-01T00:00:00Z: what `Date.now()` and `new Date()` give inside the guest. */
export const FIXED_TIME_MS = 1_704_067_200_000;

/** Longest guest error message the glue returns (characters); the host truncates again. */
export const GUEST_MESSAGE_CHARS = 500;

/**
 * Globals the prelude deletes. WebAssembly and SharedArrayBuffer memory is not counted by
 * isolated-vm's heap limit; Atomics.wait could block; WeakRef/FinalizationRegistry make a
 * program depend on the garbage collector; timers, `performance` and host objects are either
 * nondeterministic or ways out. The prelude throws (so no instance is created) if one survives.
 */
export const REMOVED_GLOBALS: readonly string[] = [
  "WebAssembly",
  "SharedArrayBuffer",
  "Atomics",
  "WeakRef",
  "FinalizationRegistry",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "clearTimeout",
  "clearInterval",
  "clearImmediate",
  "queueMicrotask",
  "performance",
  "require",
  "process",
  "module",
  "exports",
  "fetch",
  "std",
  "os",
];

/**
 * The glue protocol. The host calls `glue(op, argJson, maxChars)` and always gets a string back
 * whose first character is one of these tags (the rest is the payload).
 */
export const REPLY_TAGS = {
  /** Success; the payload is the JSON text of the result (`null` for undefined). */
  ok: "R",
  /** The method threw; payload is `Name: message`. */
  threw: "E",
  /** The method ran out of heap or stack (a guest RangeError/InternalError of that kind). */
  memory: "M",
  /** The method returned a Promise; payload is the method name. */
  promise: "P",
  /** `Environment` has no such method; payload is the method name. */
  noMethod: "N",
  /** The JSON answer was longer than `maxChars`; payload is its length. */
  tooLarge: "O",
  /** `init` found no `Environment` class. */
  noEnvironment: "C",
} as const;

/**
 * The prelude source. Evaluated as a script in a fresh guest before the program; its completion
 * value is the glue function, which the host keeps. Everything the glue uses (JSON, Reflect,
 * the PRNG state, the instance) is captured in this closure before user code runs, so the
 * program cannot replace it; getters, `toJSON` and Proxy traps of returned values run inside
 * the guest under the call's deadline, and the host only ever receives a primitive string.
 *
 * `Math.random` is sfc32 (Chris Doty-Humphrey's Small Fast Counter, 32-bit), seeded by
 * splitmix32: with lo/hi the low/high 32 bits of the seed, state a,b are the first two
 * splitmix32 outputs from `lo`, c,d the first two from `hi ^ a`; 15 outputs are discarded;
 * each `Math.random()` uses two outputs, (x >>> 5) * 2^26 + (y >>> 6), divided by 2^53.
 * It is seeded with 0 before the constructor runs and with the seed before every `reset(seed)`.
 *
 * The clock is fixed at FIXED_TIME_MS. Local-time Date methods are mapped to their UTC twins
 * and `new Date(y, m, ...)` is read as UTC, so no answer depends on the host's time zone (date
 * strings without an offset are still parsed by the engine's own rules, and V8's `Intl` follows
 * the host's ICU data).
 *
 * `console` is replaced by an inert object (its methods do nothing), so programs that log still run.
 */
export const PRELUDE_SOURCE = `(function () {
"use strict";
var G = globalThis;
var apply = Reflect.apply, construct = Reflect.construct, defineProperty = Object.defineProperty;
var jsonParse = JSON.parse, jsonStringify = JSON.stringify, StringCtor = String;
var PromiseCtor = Promise, promiseThen = Promise.prototype.then, imul = Math.imul, floor = Math.floor, strSlice = String.prototype.slice;
var REMOVED = ${JSON.stringify(REMOVED_GLOBALS)};
for (var i = 0; i < REMOVED.length; i++) {
  try { delete G[REMOVED[i]]; } catch (e) {}
  if (REMOVED[i] in G) throw new Error("spade prelude: could not remove " + REMOVED[i]);
}
function hide(obj, key, value) {
  defineProperty(obj, key, { value: value, writable: true, configurable: true, enumerable: false });
}
var noop = function () {};
hide(G, "console", Object.freeze({ log: noop, info: noop, warn: noop, error: noop, debug: noop,
  trace: noop, dir: noop, table: noop, assert: noop, group: noop, groupEnd: noop, time: noop, timeEnd: noop }));

// --- seeded Math.random: sfc32 seeded by splitmix32 ---
var s0 = 0, s1 = 0, s2 = 0, s3 = 0, sm = 0;
function splitmix32() {
  sm = (sm + 0x9e3779b9) | 0;
  var z = sm;
  z = imul(z ^ (z >>> 16), 0x85ebca6b);
  z = imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) | 0;
}
function next32() {
  var t = (((s0 + s1) | 0) + s3) | 0;
  s3 = (s3 + 1) | 0;
  s0 = s1 ^ (s1 >>> 9);
  s1 = (s2 + (s2 << 3)) | 0;
  s2 = (s2 << 21) | (s2 >>> 11);
  s2 = (s2 + t) | 0;
  return t >>> 0;
}
function seedRandom(seed) {
  var lo = seed >>> 0, hi = floor(seed / 4294967296) >>> 0;
  sm = lo; s0 = splitmix32(); s1 = splitmix32();
  sm = hi ^ s0; s2 = splitmix32(); s3 = splitmix32();
  for (var k = 0; k < 15; k++) next32();
}
hide(Math, "random", function random() {
  var x = next32() >>> 5, y = next32() >>> 6;
  return (x * 67108864 + y) / 9007199254740992;
});

// --- fixed clock, time zone UTC ---
var RealDate = Date, FIXED = ${FIXED_TIME_MS}, utc = RealDate.UTC, DP = RealDate.prototype;
var toUTCString = DP.toUTCString;
function SpadeDate(a, b) {
  if (new.target === undefined) return apply(toUTCString, new RealDate(FIXED), []);
  var n = arguments.length;
  var args = n === 0 ? [FIXED] : n === 1 ? [a] : [apply(utc, undefined, arguments)];
  return construct(RealDate, args, new.target);
}
SpadeDate.prototype = DP;
hide(SpadeDate, "now", function now() { return FIXED; });
hide(SpadeDate, "parse", RealDate.parse);
hide(SpadeDate, "UTC", utc);
hide(DP, "constructor", SpadeDate);
var UTC_TWINS = ["FullYear", "Month", "Date", "Day", "Hours", "Minutes", "Seconds", "Milliseconds"];
for (var j = 0; j < UTC_TWINS.length; j++) {
  hide(DP, "get" + UTC_TWINS[j], DP["getUTC" + UTC_TWINS[j]]);
  if (UTC_TWINS[j] !== "Day") hide(DP, "set" + UTC_TWINS[j], DP["setUTC" + UTC_TWINS[j]]);
}
hide(DP, "getTimezoneOffset", function getTimezoneOffset() { return 0; });
hide(DP, "toString", toUTCString);
hide(G, "Date", SpadeDate);

// --- the glue the host calls ---
var instance = null, EnvClass = null;
function clip(s) {
  return s.length > ${GUEST_MESSAGE_CHARS} ? apply(strSlice, s, [0, ${GUEST_MESSAGE_CHARS}]) : s;
}
function describe(e) {
  try {
    if (e !== null && typeof e === "object") {
      var name = e.name, message = e.message;
      if (typeof message === "string") return clip(StringCtor(name) + ": " + message);
    }
    return clip(StringCtor(e));
  } catch (e2) {
    return "unprintable exception";
  }
}
function tagOf(e) {
  try {
    var m = e !== null && typeof e === "object" ? e.message : undefined;
    if (m === "Maximum call stack size exceeded" || m === "stack overflow" ||
        m === "out of memory" || m === "Array buffer allocation failed") return "M";
  } catch (e2) {}
  return "E";
}
function findEnvironment() {
  return typeof Environment === "undefined" ? undefined : Environment;
}
return function glue(op, argJson, maxChars) {
  try {
    var result;
    if (op === "init") {
      var E = findEnvironment();
      if (typeof E !== "function") return "C";
      seedRandom(0);
      instance = construct(E, []);
      EnvClass = E;
      return "R";
    }
    if (instance === null) return "Eglue: the environment was not instantiated";
    if (op === "meta") {
      result = EnvClass.meta;
    } else if (op === "reset" || op === "step" || op === "hint" || op === "solve") {
      var fn = instance[op];
      if (typeof fn !== "function") return "N" + op;
      var arg = argJson === null ? undefined : jsonParse(argJson);
      if (op === "reset") seedRandom(arg);
      result = op === "reset" || op === "step" ? apply(fn, instance, [arg]) : apply(fn, instance, []);
    } else {
      return "Eglue: unknown operation";
    }
    if (result instanceof PromiseCtor) {
      // Handled here so a rejecting promise is reported once, as the contract error.
      try { apply(promiseThen, result, [undefined, noop]); } catch (e) {}
      return "P" + op;
    }
    var json = jsonStringify(result);
    if (json === undefined) json = "null";
    if (json.length > maxChars) return "O" + json.length;
    return "R" + json;
  } catch (e) {
    return tagOf(e) + describe(e);
  }
};
})()`;

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
 * nondeterministic or ways out. `Proxy` goes because engines answer some traps in native code
 * that no deadline interrupts (QuickJS checks an `ownKeys` result of n keys for duplicates in
 * O(n^2): 400k keys held the host's thread 29 s past a 200 ms deadline). The prelude throws (so
 * no instance is created) if one survives.
 */
export const REMOVED_GLOBALS: readonly string[] = [
  "WebAssembly",
  "Proxy",
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
  /** The method ran out of heap or stack (an engine RangeError/InternalError of that kind). */
  memory: "M",
  /**
   * The engine's deadline interrupt surfaced as a caught error (QuickJS's "interrupted" can reach
   * the glue's catch when it fires inside a native call); the payload is the description.
   */
  interrupted: "T",
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
 * The clock is fixed at FIXED_TIME_MS. Local-time Date methods (Annex B's getYear/setYear too)
 * are mapped to their UTC twins, `new Date(y, m, ...)` and date strings without a zone are read
 * as UTC, and `toDateString` / `toTimeString` (and QuickJS's `toLocale*String`) format UTC, so no
 * answer depends on the host's time zone. V8's `Intl` sees UTC and `en-US` because sandbox
 * processes get only `TZ=UTC` and `LC_ALL=C` as their environment (ivm-pool.ts); its
 * `DateTimeFormat` formats FIXED_TIME_MS, not the real clock, when given no date.
 *
 * Resizable `ArrayBuffer`s are refused (`maxByteLength`) and `resize`/`transfer` deleted: V8
 * commits their memory outside the heap accounting isolated-vm's cap relies on (measured: a
 * 16 MiB isolate holding 96 MiB more per step reached 1.2 GB). `RangeError` and `InternalError`
 * are wrapped so the glue can tell an engine's stack or heap error from one the guest made.
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
var getProto = Object.getPrototypeOf, setProto = Object.setPrototypeOf, getOwn = Object.getOwnPropertyDescriptor;
var hasOwn = Object.prototype.hasOwnProperty, objToString = Object.prototype.toString, TAG = Symbol.toStringTag;

// --- no resizable ArrayBuffer: resize() commits memory outside the isolate's heap accounting ---
var RealArrayBuffer = G.ArrayBuffer, ABP = RealArrayBuffer.prototype;
function ArrayBufferCtor(length, options) {
  if (new.target === undefined) throw new TypeError("Constructor ArrayBuffer requires 'new'");
  if (options !== null && typeof options === "object" && options.maxByteLength !== undefined) {
    throw new RangeError("resizable ArrayBuffers (maxByteLength) are not available in the sandbox");
  }
  // options are never passed on: the engine only ever makes fixed-length buffers.
  return construct(RealArrayBuffer, [length], new.target);
}
defineProperty(ArrayBufferCtor, "name", { value: "ArrayBuffer", configurable: true });
defineProperty(ArrayBufferCtor, "length", { value: 1, configurable: true });
defineProperty(ArrayBufferCtor, "prototype", { value: ABP, writable: false, enumerable: false, configurable: false });
hide(ArrayBufferCtor, "isView", RealArrayBuffer.isView);
defineProperty(ArrayBufferCtor, Symbol.species, { get: function () { return this; }, configurable: true });
hide(ABP, "constructor", ArrayBufferCtor);
hide(G, "ArrayBuffer", ArrayBufferCtor);
var GROWERS = [[ABP, "resize"], [ABP, "transfer"]];
for (var g = 0; g < GROWERS.length; g++) {
  try { delete GROWERS[g][0][GROWERS[g][1]]; } catch (e) {}
  if (GROWERS[g][1] in GROWERS[g][0]) throw new Error("spade prelude: could not remove ArrayBuffer " + GROWERS[g][1]);
}

// --- errors the guest makes itself are marked, so only engine errors count as out of memory ---
var madeByGuest = new WeakSet(), weakAdd = WeakSet.prototype.add, weakHas = WeakSet.prototype.has;
var ENGINE_ERROR_PROTOS = [];
function markConstructed(name) {
  var Real = G[name];
  if (typeof Real !== "function") return;
  ENGINE_ERROR_PROTOS[ENGINE_ERROR_PROTOS.length] = Real.prototype;
  var Wrapped = function (message, options) {
    var e = construct(Real, arguments, new.target === undefined ? Wrapped : new.target);
    apply(weakAdd, madeByGuest, [e]);
    return e;
  };
  defineProperty(Wrapped, "name", { value: name, configurable: true });
  defineProperty(Wrapped, "prototype", { value: Real.prototype, writable: false, enumerable: false, configurable: false });
  setProto(Wrapped, getProto(Real));
  hide(Real.prototype, "constructor", Wrapped);
  hide(G, name, Wrapped);
}
markConstructed("RangeError");
markConstructed("InternalError");

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

// --- fixed clock, time zone UTC (QuickJS runs in the host's process and sees its time zone) ---
var RealDate = Date, FIXED = ${FIXED_TIME_MS}, utc = RealDate.UTC, realParse = RealDate.parse, DP = RealDate.prototype;
var toUTCString = DP.toUTCString, getTime = DP.getTime, engineOffset = DP.getTimezoneOffset;
// Backslashes are doubled here: in the host template literal a single one would vanish.
var DATE_ONLY = /^\\s*[+-]?\\d{4,6}(?:-\\d\\d){0,2}\\s*$/, HAS_ZONE = /(?:z|[+-]\\d\\d:?\\d\\d|gmt|utc)\\s*(?:\\(.*\\))?\\s*$|gmt|utc/i;
var reTest = RegExp.prototype.test;
// RegExp.prototype.test looks \`exec\` up on the regex: pin it so the guest cannot swap it.
hide(DATE_ONLY, "exec", RegExp.prototype.exec);
hide(HAS_ZONE, "exec", RegExp.prototype.exec);
/** Date.parse read as UTC: a string without a zone is shifted back by the engine's local offset. */
function parseUTC(text) {
  var s = StringCtor(text), t = apply(realParse, RealDate, [s]);
  if (t !== t || apply(reTest, DATE_ONLY, [s]) || apply(reTest, HAS_ZONE, [s])) return t;
  var off = apply(engineOffset, new RealDate(t), []);
  if (off === 0) return t;
  return t - apply(engineOffset, new RealDate(t - off * 60000), []) * 60000;
}
function SpadeDate(a, b) {
  if (new.target === undefined) return apply(toUTCString, new RealDate(FIXED), []);
  var n = arguments.length;
  var args = n === 0 ? [FIXED] : n === 1 ? [typeof a === "string" ? parseUTC(a) : a] : [apply(utc, undefined, arguments)];
  return construct(RealDate, args, new.target);
}
SpadeDate.prototype = DP;
hide(SpadeDate, "now", function now() { return FIXED; });
hide(SpadeDate, "parse", function parse(text) { return parseUTC(text); });
hide(SpadeDate, "UTC", utc);
hide(DP, "constructor", SpadeDate);
var UTC_TWINS = ["FullYear", "Month", "Date", "Day", "Hours", "Minutes", "Seconds", "Milliseconds"];
var U = {};
for (var j = 0; j < UTC_TWINS.length; j++) {
  U[UTC_TWINS[j]] = DP["getUTC" + UTC_TWINS[j]];
  hide(DP, "get" + UTC_TWINS[j], DP["getUTC" + UTC_TWINS[j]]);
  if (UTC_TWINS[j] !== "Day") hide(DP, "set" + UTC_TWINS[j], DP["setUTC" + UTC_TWINS[j]]);
}
// Annex B's getYear/setYear read local time too (QuickJS has them; V8 runs them in UTC anyway).
var setUTCFullYear = DP.setUTCFullYear, setTime = DP.setTime;
hide(DP, "getYear", function getYear() { return apply(U.FullYear, this, []) - 1900; });
hide(DP, "setYear", function setYear(year) {
  var y = +year;
  if (y !== y) return apply(setTime, this, [NaN]);
  var whole = y < 0 ? -floor(-y) : floor(y);
  return apply(setUTCFullYear, this, [whole >= 0 && whole <= 99 ? 1900 + whole : y]);
});
hide(DP, "getTimezoneOffset", function getTimezoneOffset() { return 0; });
hide(DP, "toString", toUTCString);
var DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
function pad(n, width) { var t = StringCtor(n < 0 ? -n : n); while (t.length < width) t = "0" + t; return (n < 0 ? "-" : "") + t; }
function part(d, name) { return apply(U[name], d, []); }
function invalid(d) { var t = apply(getTime, d, []); return t !== t; }
function clock(d) { return pad(part(d, "Hours"), 2) + ":" + pad(part(d, "Minutes"), 2) + ":" + pad(part(d, "Seconds"), 2); }
hide(DP, "toDateString", function toDateString() {
  if (invalid(this)) return "Invalid Date";
  return DAYS[part(this, "Day")] + " " + MONTHS[part(this, "Month")] + " " + pad(part(this, "Date"), 2) + " " + pad(part(this, "FullYear"), 4);
});
hide(DP, "toTimeString", function toTimeString() {
  return invalid(this) ? "Invalid Date" : clock(this) + " GMT+0000 (Coordinated Universal Time)";
});
if (typeof G.Intl === "undefined") {
  // QuickJS formats these from the host's local time; V8 uses Intl (sandbox processes run in UTC).
  var localeDate = function (d) { return pad(part(d, "Month") + 1, 2) + "/" + pad(part(d, "Date"), 2) + "/" + pad(part(d, "FullYear"), 4); };
  var localeTime = function (d) {
    var h = part(d, "Hours");
    return pad(h % 12 === 0 ? 12 : h % 12, 2) + ":" + pad(part(d, "Minutes"), 2) + ":" + pad(part(d, "Seconds"), 2) + (h < 12 ? " AM" : " PM");
  };
  hide(DP, "toLocaleDateString", function toLocaleDateString() { return invalid(this) ? "Invalid Date" : localeDate(this); });
  hide(DP, "toLocaleTimeString", function toLocaleTimeString() { return invalid(this) ? "Invalid Date" : localeTime(this); });
  hide(DP, "toLocaleString", function toLocaleString() { return invalid(this) ? "Invalid Date" : localeDate(this) + ", " + localeTime(this); });
}
hide(G, "Date", SpadeDate);
if (typeof G.Intl === "object" && G.Intl !== null && typeof G.Intl.DateTimeFormat === "function") {
  // V8's Intl formats the real clock when no date is given (format(), formatToParts()).
  var DTFP = G.Intl.DateTimeFormat.prototype, formatGetter = getOwn(DTFP, "format").get, realToParts = DTFP.formatToParts;
  var fixedFormats = new WeakMap(), mapGet = WeakMap.prototype.get, mapSet = WeakMap.prototype.set;
  defineProperty(DTFP, "format", { enumerable: false, configurable: true, get: function () {
    var real = apply(formatGetter, this, []), fixed = apply(mapGet, fixedFormats, [real]);
    if (fixed === undefined) {
      fixed = function (date) { return real(date === undefined ? FIXED : date); };
      apply(mapSet, fixedFormats, [real, fixed]);
    }
    return fixed;
  } });
  hide(DTFP, "formatToParts", function formatToParts(date) { return apply(realToParts, this, [date === undefined ? FIXED : date]); });
}

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
var ENGINE_LIMIT_MESSAGES = ["Maximum call stack size exceeded", "stack overflow", "out of memory", "Array buffer allocation failed"];
function isEngineError(e, messages) {
  if (e === null || typeof e !== "object" || apply(weakHas, madeByGuest, [e])) return false;
  var proto = getProto(e), known = false;
  for (var i = 0; i < ENGINE_ERROR_PROTOS.length; i++) if (ENGINE_ERROR_PROTOS[i] === proto) known = true;
  if (!known) return false;
  // A real error object: [[ErrorData]] shows in Object.prototype.toString unless a tag hides it.
  for (var o = e; o !== null; o = getProto(o)) if (getOwn(o, TAG) !== undefined) return false;
  if (apply(objToString, e, []) !== "[object Error]") return false;
  var d = getOwn(e, "message");
  if (d === undefined || !apply(hasOwn, d, ["value"])) return false;
  for (var j = 0; j < messages.length; j++) if (d.value === messages[j]) return true;
  return false;
}
function tagOf(e) {
  try {
    if (isEngineError(e, ENGINE_LIMIT_MESSAGES)) return "M";
    if (isEngineError(e, ["interrupted"])) return "T";
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

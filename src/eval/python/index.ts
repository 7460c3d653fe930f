/**
 * @module eval/python
 * Python semantics for ports of Python benchmarks: the value model, operators, idioms
 * (`in`, subscripts, `.get`), literal and call parsing, Python's text forms, float formatting,
 * str methods and CPython's random number generator.
 */
export * from "./call.js";
export * from "./float.js";
export * from "./format.js";
export * from "./idioms.js";
export * from "./ops.js";
export * from "./random.js";
export * from "./str.js";
export * from "./value.js";

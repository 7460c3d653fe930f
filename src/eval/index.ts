/**
 * @module eval
 * Held-out evaluation. Shared pieces for ports of Python benchmarks: Python values, literal
 * and call parsing, Python's text forms, and CPython's random number generator.
 */
export { PyRandom } from "./pyrandom.js";
export {
  PY_ELLIPSIS,
  PyObject,
  PyTuple,
  deepCopy,
  dictDelete,
  dictGet,
  dictHas,
  dictSet,
  findKey,
  fromJson,
  isDict,
  isFloat,
  isInt,
  isList,
  isPyKey,
  jsonKey,
  pyDict,
  pyEquals,
  pyTypeName,
  toJson,
  type PyDict,
  type PyKey,
  type PySet,
  type PyValue,
} from "./pyvalue.js";
export { parseJsonPy, parsePythonCall, parsePythonCalls, parsePythonLiteral, type PyCall } from "./pycall.js";
export { PyJsonTypeError, jsonString, pyJsonDumps, pyRepr, pyStr, strRepr } from "./pyformat.js";
export { floatRepr, formatFixed, roundFloat, roundFloatToInt, roundInt } from "./pyfloat.js";
export {
  PyException,
  asNumber,
  compareCodePoints,
  pyAbs,
  pyAdd,
  pyFloat,
  pyGe,
  pyGt,
  pyInt,
  pyLe,
  pyLen,
  pyLt,
  pyMod,
  pyMul,
  pyNeg,
  pyPow,
  pySub,
  pyTrueDiv,
  truthy,
} from "./pyops.js";
export { formatNamed, lstrip, rstrip, sortedStrings, splitWhitespace, splitlines, strip, utf8Length } from "./pystr.js";
export { DATA_DIR_ENV, DATA_NEXT_STEP, dataRoot, datasetDir, field, parseJsonl, readJson, readJsonSync, readJsonl, readJsonlSync, readText, readTextSync, takeLimit, type DataDirOptions } from "./data.js";

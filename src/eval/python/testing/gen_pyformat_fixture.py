"""Writes pyformat_fixture.json: CPython's float and string text forms, for pyformat.test.ts.

Run from the repository root: python3 src/eval/python/testing/gen_pyformat_fixture.py
Floats travel as float.hex() so the test reads the exact double.
"""
import json
import random
import struct
import sys
from pathlib import Path


def floats():
    fixed = [0.0, -0.0, 1.0, -1.5, 0.1, 0.125, 0.375, 2.5, -2.5, 1e16, 1e15, 123456789012345678.0,
             1.5e16, 1e-4, 1e-5, 0.00012345, 5e-324, 1.7976931348623157e308, 26.333333333333332,
             3333.3333333333335, 4.85340659285368, 2.675, 1.005, 0.045, 1234.5, 1235.5, 999.995,
             1e22, 1e23, 2.0 ** 60, 170.978, 100.0, 7.0, 0.3, 2.0 / 3.0]
    rng = random.Random(20260323)
    out = list(fixed)
    for _ in range(80):
        bits = rng.getrandbits(64)
        x = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if x == x and abs(x) != float("inf"):
            out.append(x)
    for _ in range(50):
        out.append(round(rng.uniform(-10000, 10000), rng.randint(0, 6)))
    return out


def main():
    rows = []
    for x in floats():
        row = {"x": x.hex(), "repr": repr(x), "f2": "%.2f" % x, "f0": "%.0f" % x}
        row["round2"] = round(x, 2).hex()
        row["round0"] = round(x, 0).hex()
        row["roundm1"] = round(x, -1).hex()
        row["roundint"] = str(round(x)) if abs(x) < 1e300 else None
        rows.append(row)
    strings = ["plain", "it's", 'say "hi"', "both ' and \"", "tab\tnew\nline\r", "back\\slash",
               "ctl\x00\x1f\x7f", "caf\u00e9 \u00a0nbsp \u00ad", "\u4e2d\u6587", "emoji \U0001F600",
               "\u2028sep", "\u200bzw", "\U000e0001tag", ""]
    text = [{"s": s, "repr": repr(s), "json": json.dumps(s)} for s in strings]
    values = {
        "repr": repr({"a": [1, 2.5, None, True], "b": (1,), "c": (), "d": {"x": -0.0}}),
        "json": json.dumps({"a": [1, 2.5, None, True], "b": (1, 2), 3: "int key", 2.5: "float key",
                            "n": float("nan"), "i": float("-inf")}),
    }
    doc = {"python": sys.version.split()[0], "floats": rows, "strings": text, "values": values}
    Path(__file__).with_name("pyformat_fixture.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()

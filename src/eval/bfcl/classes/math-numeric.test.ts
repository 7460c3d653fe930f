import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BfclInstances } from "../executor.js";
import { BfclSession } from "../session.js";
import { isqrt } from "./decimal-sqrt.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("MathAPI.logarithm at the port's largest precision", () => {
  // Expected: str({"result": mpmath.log(v) / mpmath.log(b)}) at mp.dps = 10000 (mpmath 1.3.0).
  const cases = [
    [
      "logarithm(value=2, base=3, precision=10000)",
      10024,
      "29a2184af2cb6336a90ef20bcbabaf8d92ad3d8ada1c3d66aaf4f8f158949651",
    ],
    [
      "logarithm(value=1e-300, base=1e300, precision=10000)",
      10025,
      "f465e96c61223243eade24447ca7e5ac8a239241cc96723913ade0ad62fbb134",
    ],
    [
      "logarithm(value=7688536845, base=1.5, precision=10000)",
      10023,
      "1911a44903e84339fbdbbe94e7851aa000fa66562ef4a7cbbe432bb66b8bf295",
    ],
  ] as const;

  it("gives mpmath's digits, in well under the seconds one call used to block for", () => {
    const instances = new BfclInstances(new BfclSession(), ["MathAPI"], new Map(), false);
    const started = performance.now();
    const results = cases.map(([call]) => instances.executeString(call));
    const elapsedMs = performance.now() - started;
    expect(results.map((r) => [r.length, sha256(r)])).toEqual(cases.map(([, n, h]) => [n, h]));
    expect(results[0]!.slice(0, 40)).toBe("{'result': mpf('0.6309297535714574370995");
    // The plain atanh series took about 3.6 s per call here (11 s for the three); the square
    // roots bring that to about 0.3 s. The bound is loose so a slow machine does not flake.
    expect(elapsedMs).toBeLessThan(6000);
  });
});

describe("MathAPI.logarithm of a decimal string with a far exponent", () => {
  it("multiplies by a rounded power of ten past 10^+-400, as mpmath's from_str, at once", () => {
    // Expected: str({"result": mpmath.log(v) / mpmath.log(b)}) (mpmath 1.3.0). Before, the port
    // built 10n ** exponent exactly: 12.6 s for 1e100000000, 30 s then a RangeError for 5e999999999.
    const cases = [
      [
        "logarithm(value='5e999999999', base=10, precision=15)",
        "{'result': mpf('999999999.69896996')}",
      ],
      ["logarithm(value='2e1000000', base=10, precision=5)", "{'result': mpf('999999.0')}"],
      [
        "logarithm(value='3.3e-123457', base='2.5e-777', precision=30)",
        "{'result': mpf('158.970066970255933279502602406202')}",
      ],
      [
        "logarithm(value='1.000e402', base='2.5e-777', precision=50)",
        "{'result': mpf('-0.51763962614841504580372103993129070184760974301377463')}",
      ],
      [
        "logarithm(value='1e1000000000000001', base=10, precision=5)",
        '{"error": "decimal exponents beyond 10^15 are not supported by this port"}',
      ],
    ] as const;
    const instances = new BfclInstances(new BfclSession(), ["MathAPI"], new Map(), false);
    expect(cases.map(([call]) => [call, instances.executeString(call)])).toEqual(cases);
  });

  it("strips a long fraction's zeros in linear time", () => {
    // Expected from mpmath 1.3.0 (under sys.set_int_max_str_digits(0), as Python 3.10 has no
    // limit). A /0+$/ regex here took 13 s over the 90,000 zeros.
    const instances = new BfclInstances(new BfclSession(), ["MathAPI"], new Map(), false);
    const zeros = "0".repeat(90000);
    const started = performance.now();
    expect([
      instances.executeString(
        `logarithm(value='0.${zeros}1${"0".repeat(100)}', base=10, precision=5)`,
      ),
      instances.executeString(`logarithm(value='0.${zeros}3', base=10, precision=20)`),
    ]).toEqual(["{'result': mpf('-90001.0')}", "{'result': mpf('-90000.522878745280337509')}"]);
    // Milliseconds now; the regex took 28 s for the two under vitest. Loose, so no flakes.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe("isqrt", () => {
  it("is floor(sqrt(n)) at and around squares, from small to thousands of bits", () => {
    const failures: bigint[] = [];
    for (let bits = 1n; bits < 4000n; bits += 37n) {
      const root = (1n << bits) / 3n + bits;
      for (const n of [root * root - 1n, root * root, root * root + 1n, (root + 1n) ** 2n - 1n]) {
        const r = isqrt(n);
        if (!(r * r <= n && (r + 1n) * (r + 1n) > n)) failures.push(n);
      }
    }
    expect(failures).toEqual([]);
    expect([0n, 1n, 2n, 3n, 4n, 15n, 16n, 2n ** 52n - 1n, 2n ** 52n].map(isqrt)).toEqual([
      0n,
      1n,
      1n,
      1n,
      2n,
      3n,
      4n,
      67108863n,
      67108864n,
    ]);
  });
});

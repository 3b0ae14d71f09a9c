import Decimal from "decimal.js";
import { describe, expect, it } from "vitest";
import { creditsPositive, creditsToNumber, creditsToSql } from "./money";

// The Decimal path both functions take for any input (their fast paths must agree with it).
const Credits = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
const viaDecimalNumber = (v: string) => new Credits(v).toDecimalPlaces(6).toNumber();
const viaDecimalSql = (v: string) => new Credits(v).toDecimalPlaces(6).toFixed();

const samples = [
  "0", "-0", "0.0", "-0.000000", "1", "-1", "1.5", "1.500000", "007", "007.250", "0.000001", "-0.000001", "0.1", "0.3",
  "99999999999999", "99999999999999.999999", "-99999999999999.999999", "12345678901234.567891", "0.1234567", "1.0000005",
  "100000000000000", "1e3", "1.", ".5", " 1", "123456.000100", "10", "10.10", "-0.5", "0.000000",
];

/** The fast path gives what the Decimal path gives (the same value, sign of zero included), or throws where it throws. */
function agrees<T>(v: string, fast: (v: string) => T, reference: (v: string) => T) {
  let expected: T | Error;
  try {
    expected = reference(v);
  } catch (err) {
    expected = err as Error;
  }
  if (expected instanceof Error) expect(() => fast(v), v).toThrow();
  else expect(Object.is(fast(v), expected), v).toBe(true);
}

describe("credits conversions", () => {
  it("creditsToNumber equals the Decimal conversion, sign of zero included", () => {
    for (const v of samples) agrees(v, creditsToNumber, viaDecimalNumber);
    for (let i = 0; i < 20_000; i++) {
      const int = String(Math.floor(Math.random() * 10 ** Math.floor(Math.random() * 15)));
      const frac = String(Math.floor(Math.random() * 1e6)).padStart(6, "0").slice(0, 1 + Math.floor(Math.random() * 6));
      const v = `${Math.random() < 0.2 ? "-" : ""}${int}${Math.random() < 0.8 ? `.${frac}` : ""}`;
      expect(Object.is(creditsToNumber(v), viaDecimalNumber(v)), v).toBe(true);
      expect(creditsToSql(v), v).toBe(viaDecimalSql(v));
      expect(creditsPositive(v), v).toBe(new Credits(v).gt(0));
    }
    for (const v of samples) agrees(v, creditsPositive, (x) => new Credits(x).gt(0));
    expect(creditsToNumber(null)).toBe(0);
    expect(creditsToNumber(new Decimal("2.5"))).toBe(2.5);
  });

  it("creditsToSql equals the Decimal conversion", () => {
    for (const v of samples) agrees(v, creditsToSql, viaDecimalSql);
    expect(creditsToSql(1.25)).toBe("1.25");
  });
});

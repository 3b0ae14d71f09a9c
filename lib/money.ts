import Decimal from "decimal.js";

/**
 * Credits are exact decimals with at most six places. Arithmetic on balances happens in SQL
 * (`numeric`) or with Decimal here; a JS number appears only at the JSON response boundary.
 */
export const CREDIT_SCALE = 6;
const Credits = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
export type CreditAmount = Decimal;

const pattern = /^-?\d{1,14}(\.\d{1,6})?$/;

export function isCreditString(value: string): boolean {
  return pattern.test(value);
}

export function credits(value: string | number | Decimal): Decimal {
  return new Credits(value);
}

const nonZeroDigit = /[1-9]/;

/** `credits(value).gt(0)`, without a Decimal for a plain decimal string (a sign, digits, at most six decimals). */
export function creditsPositive(value: string): boolean {
  if (typeof value === "string" && pattern.test(value)) return value[0] !== "-" && nonZeroDigit.test(value);
  return credits(value).gt(0);
}

/** A numeric column (string) or Decimal as a JSON number. */
export function creditsToNumber(value: string | Decimal | null | undefined): number {
  if (value === null || value === undefined) return 0;
  // At most 14 + 6 digits and no exponent: Number() reads the exact value the Decimal would print
  // (rounding to 6 places changes nothing, and both round the same real number to a double).
  if (typeof value === "string" && pattern.test(value)) return Number(value);
  return new Credits(value).toDecimalPlaces(CREDIT_SCALE).toNumber();
}

/** Strings `creditsToSql` returns unchanged: no sign on zero, no leading or trailing zeros, at most six decimals. */
const canonical = /^(?:-?[1-9]\d{0,13}(?:\.\d{0,5}[1-9])?|-?0\.\d{0,5}[1-9]|0)$/;

/** Canonical string for SQL parameters: at most six decimals, no exponent. */
export function creditsToSql(value: string | number | Decimal): string {
  if (typeof value === "string" && canonical.test(value)) return value;
  return new Credits(value).toDecimalPlaces(CREDIT_SCALE).toFixed();
}

/** "1 credit", "0.5 credits", "2 credits": an amount of credits in a sentence. */
export function creditsText(value: string | number | Decimal): string {
  const n = typeof value === "number" ? value : creditsToNumber(value);
  return `${n} ${n === 1 ? "credit" : "credits"}`;
}

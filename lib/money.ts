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

/** A numeric column (string) or Decimal as a JSON number. */
export function creditsToNumber(value: string | Decimal | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return new Credits(value).toDecimalPlaces(CREDIT_SCALE).toNumber();
}

/** Canonical string for SQL parameters: at most six decimals, no exponent. */
export function creditsToSql(value: string | number | Decimal): string {
  return new Credits(value).toDecimalPlaces(CREDIT_SCALE).toFixed();
}

/** "1 credit", "0.5 credits", "2 credits": an amount of credits in a sentence. */
export function creditsText(value: string | number | Decimal): string {
  const n = typeof value === "number" ? value : creditsToNumber(value);
  return `${n} ${n === 1 ? "credit" : "credits"}`;
}

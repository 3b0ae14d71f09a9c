import { type BillingRule, type ToolParam, describeBillingRule, quoteBillingUnits, settledBillingUnits } from "../catalog/manifest";
import { credits, creditsToSql } from "../money";

export interface Quote {
  /** Exact decimal string. For a price that depends on the result, the upper bound. */
  estimateCredits: string;
  exact: boolean;
  basis: string;
  units: number;
}

const FREE: Quote = { estimateCredits: "0", exact: true, basis: "free", units: 0 };

/** The pre-call price of a tool for these parameters (billing_rule semantics: docs/catalog.md). */
export function quoteCall(rule: BillingRule | null, params: ToolParam[], values: Record<string, unknown>): Quote {
  if (!rule || rule.unit === "free") return FREE;
  const { units, exact } = quoteBillingUnits(rule, params, values);
  const amount = credits(rule.amount_credits).times(units);
  const basis = rule.unit === "call" ? "per call" : `${describeBillingRule(rule, params)}: ${units} unit${units === 1 ? "" : "s"}${exact ? "" : " at most"}`;
  return { estimateCredits: creditsToSql(amount), exact, basis, units };
}

/** What a successful call costs once its result is known; failures cost nothing. */
export function settleAmount(rule: BillingRule | null, params: ToolParam[], values: Record<string, unknown>, data: unknown): { amount: string; units: number } {
  if (!rule || rule.unit === "free") return { amount: "0", units: 0 };
  const units = settledBillingUnits(rule, params, values, data);
  return { amount: creditsToSql(credits(rule.amount_credits).times(units)), units };
}

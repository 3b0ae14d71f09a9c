import type { ChargeOutcome } from "../db/schema";
import { creditsPositive } from "../money";

/**
 * Contract section 3, the only place it is computed: the final charge classification is a pure
 * function of the effective success flag and the settled amount.
 */
export function deriveChargeOutcome(success: boolean, settledAmount: string): ChargeOutcome {
  const charged = creditsPositive(settledAmount);
  if (success) return charged ? "charged" : "included";
  return charged ? "failed_charged_review" : "failed_not_charged";
}

import { eq } from "drizzle-orm";
import { creditBalances } from "../db/schema";
import type { Db } from "../db/types";
import { notFound } from "../errors";
import { credits, creditsToNumber } from "../money";

/** The account's balance by kind; `total_available_credits` excludes credits reserved by running Calls. */
export async function getBalance(db: Db, accountId: string) {
  const rows = await db.select().from(creditBalances).where(eq(creditBalances.accountId, accountId));
  const row = rows[0];
  if (!row) throw notFound(`Account ${accountId} not found`);
  const total = credits(row.paidCredits).plus(row.bonusCredits).plus(row.rewardCredits);
  return {
    account_id: accountId,
    paid_credits: creditsToNumber(row.paidCredits),
    bonus_credits: creditsToNumber(row.bonusCredits),
    reward_credits: creditsToNumber(row.rewardCredits),
    reserved_credits: creditsToNumber(row.reservedCredits),
    total_credits: creditsToNumber(total),
    total_available_credits: creditsToNumber(total.minus(row.reservedCredits)),
    currency: "credits" as const,
  };
}

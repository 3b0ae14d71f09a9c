import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { creditsToNumber } from "../money";
import type { CreditKind } from "./grant-credits";

/** At most this many lots are listed; `has_more` says there are others, expiring later. */
export const EXPIRATIONS_LIMIT = 100;

/**
 * The account's credits that will expire: each live grant lot with credits left, soonest first
 * (the order consumption draws them in, within a kind). A lot past its `expires_at` stays listed
 * until the sweeper has expired it.
 */
export async function listCreditExpirations(db: Db, input: { accountId: string }) {
  const found = rows<{ id: string; kind: CreditKind; amount_credits: string; remaining_credits: string; expires_at: string }>(
    await db.execute(sql`
      SELECT id, kind, amount_credits, remaining_credits, expires_at FROM credit_grants
       WHERE account_id = ${input.accountId} AND expired_at IS NULL AND remaining_credits > 0
       ORDER BY expires_at, id LIMIT ${EXPIRATIONS_LIMIT + 1}`),
  );
  return {
    items: found.slice(0, EXPIRATIONS_LIMIT).map((lot) => ({
      grant_id: lot.id,
      kind: lot.kind,
      amount_credits: creditsToNumber(lot.amount_credits),
      remaining_credits: creditsToNumber(lot.remaining_credits),
      expires_at: new Date(lot.expires_at).toISOString(),
    })),
    has_more: found.length > EXPIRATIONS_LIMIT,
  };
}

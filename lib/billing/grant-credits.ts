import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { creditsToNumber, creditsToSql, credits as toDecimal, isCreditString } from "../money";
import type { LedgerEntryType } from "../db/schema";

export const grantTypes = ["payment_recharge", "welcome_bonus", "invitation_reward"] as const;
export type GrantType = (typeof grantTypes)[number];

/** Which balance column each grant feeds (see docs/billing.md for the consumption order). */
const kindColumn: Record<GrantType, "paid_credits" | "bonus_credits" | "reward_credits"> = {
  payment_recharge: "paid_credits",
  welcome_bonus: "bonus_credits",
  invitation_reward: "reward_credits",
};

/**
 * Adds credits and appends the grant's ledger row in one statement: the balance update and the
 * ledger insert share a writable CTE, so the balance snapshots come from the locked row.
 */
export async function grantCredits(
  db: Db,
  input: { accountId: string; amount: string; type: GrantType; description?: string; sourceRefId?: string },
) {
  if (!isCreditString(input.amount) || toDecimal(input.amount).lte(0)) {
    throw invalidInput(`Amount must be a positive number with at most 6 decimals, got "${input.amount}"`);
  }
  const amount = creditsToSql(input.amount);
  const column = sql.raw(kindColumn[input.type]);
  const entryType: LedgerEntryType = `grant_${input.type}`;
  const id = newId("led");
  const result = await db.execute(sql`
    WITH b AS (
      UPDATE credit_balances
         SET ${column} = ${column} + ${amount}::numeric, updated_at = now()
       WHERE account_id = ${input.accountId}
   RETURNING paid_credits + bonus_credits + reward_credits AS total_after
    )
    INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type,
                                source_ref_id, balance_before, balance_after, ledger_metadata, description)
    SELECT ${id}, ${input.accountId}, ${entryType}, ${amount}::numeric, 'admin', 'grant', ${input.sourceRefId ?? id},
           b.total_after - ${amount}::numeric, b.total_after,
           ${JSON.stringify({ credit_kind: kindColumn[input.type].replace("_credits", "") })}::jsonb,
           ${input.description ?? entryType.replaceAll("_", " ")}
      FROM b
    RETURNING id, balance_after
  `);
  const rows = (result as unknown as { rows: { id: string; balance_after: string }[] }).rows;
  if (rows.length === 0) throw notFound(`Account ${input.accountId} not found`);
  return { ledger_entry_id: rows[0].id, balance_after: creditsToNumber(rows[0].balance_after) };
}

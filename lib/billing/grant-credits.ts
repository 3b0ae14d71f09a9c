import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { systemClock, type Clock } from "../clock";
import { creditsToNumber, creditsToSql, credits as toDecimal, isCreditString } from "../money";
import type { LedgerEntryType } from "../db/schema";
import { type Actor, SYSTEM, recordActivity } from "../accounts/activity";

export const grantTypes = ["payment_recharge", "welcome_bonus", "invitation_reward"] as const;
export type GrantType = (typeof grantTypes)[number];
export type CreditKind = "paid" | "bonus" | "reward";

/** The kind each grant feeds (see docs/billing.md for the consumption order). */
export const grantKind: Record<GrantType, CreditKind> = {
  payment_recharge: "paid",
  welcome_bonus: "bonus",
  invitation_reward: "reward",
};

/**
 * Adds credits and appends the grant's ledger row in one statement: the balance update and the
 * ledger insert share a writable CTE, so the balance snapshots come from the locked row. With
 * `expiresAt`, the same statement inserts the grant's lot (`credit_grants`, id = the ledger row's),
 * which consumption draws first within its kind and the sweeper expires (lib/billing/expire-grants.ts).
 *
 * Given a transaction, it runs inside it (a savepoint): a payment's grant commits with the payment's
 * change of status (lib/payments/stripe-events.ts), which names the source (`source`: system, ref
 * type and id; default the operator's `admin` / `grant`) and adds to the row's `ledger_metadata`.
 */
export async function grantCredits(
  db: Db,
  input: {
    accountId: string;
    amount: string;
    type: GrantType;
    description?: string;
    sourceRefId?: string;
    expiresAt?: Date;
    actor?: Actor;
    /** The ledger row's id (default a new `led_…`). */
    id?: string;
    source?: { system: string; refType: string; refId: string };
    metadata?: Record<string, unknown>;
  },
  clock: Clock = systemClock,
) {
  if (!isCreditString(input.amount) || toDecimal(input.amount).lte(0)) {
    throw invalidInput(`Amount must be a positive number with at most 6 decimals, got "${input.amount}"`);
  }
  const expiresAt = input.expiresAt;
  if (expiresAt !== undefined && !(expiresAt.getTime() > clock.now().getTime())) {
    throw invalidInput(`expires_at must be a time in the future, got "${Number.isNaN(expiresAt.getTime()) ? "an invalid date" : expiresAt.toISOString()}"`);
  }
  const amount = creditsToSql(input.amount);
  const kind = grantKind[input.type];
  const column = sql.raw(`${kind}_credits`);
  const entryType: LedgerEntryType = `grant_${input.type}`;
  const id = input.id ?? newId("led");
  const metadata = { ...input.metadata, credit_kind: kind, ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}) };
  const source = input.source ?? { system: "admin", refType: "grant", refId: input.sourceRefId ?? id };
  const lot = expiresAt
    ? sql`, lot AS (
        INSERT INTO credit_grants (id, account_id, kind, amount_credits, remaining_credits, expires_at)
        SELECT ${id}, ${input.accountId}, ${kind}, ${amount}::numeric, ${amount}::numeric, ${expiresAt.toISOString()}::timestamptz FROM b
      )`
    : sql``;
  const statement = sql`
    WITH b AS (
      UPDATE credit_balances
         SET ${column} = ${column} + ${amount}::numeric, updated_at = now()
       WHERE account_id = ${input.accountId}
   RETURNING paid_credits + bonus_credits + reward_credits AS total_after
    )${lot}
    INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type,
                                source_ref_id, balance_before, balance_after, ledger_metadata, description)
    SELECT ${id}, ${input.accountId}, ${entryType}, ${amount}::numeric, ${source.system}, ${source.refType}, ${source.refId},
           b.total_after - ${amount}::numeric, b.total_after, ${JSON.stringify(metadata)}::jsonb,
           ${input.description ?? entryType.replaceAll("_", " ")}
      FROM b
    RETURNING id, balance_after
  `;
  const rows = await db.transaction(async (tx) => {
    // A debit reads an account's lots under its balance row lock, but from its statement's
    // snapshot: one that started before this grant committed would not see the new lot. The
    // table lock is taken before a statement's snapshot, so a debit either finishes before
    // this grant or starts after it. It pauses every debit for the grant's few milliseconds.
    if (expiresAt) await tx.execute(sql`LOCK TABLE credit_grants IN SHARE ROW EXCLUSIVE MODE`);
    const found = ((await tx.execute(statement)) as unknown as { rows: { id: string; balance_after: string }[] }).rows;
    if (found.length === 0) throw notFound(`Account ${input.accountId} not found`);
    await recordActivity(tx as unknown as Db, input.accountId, input.actor ?? SYSTEM, {
      action: "credits.granted",
      objectType: "ledger_entry",
      objectId: id,
      after: {
        amount_credits: toDecimal(input.amount).toFixed(),
        type: input.type,
        expires_at: expiresAt?.toISOString() ?? null,
        balance_after: toDecimal(found[0].balance_after).toFixed(),
        ...(input.source ? { source: input.source.system, source_ref_id: input.source.refId } : {}),
      },
    });
    return found;
  });
  return {
    ledger_entry_id: rows[0].id,
    balance_after: creditsToNumber(rows[0].balance_after),
    expires_at: expiresAt ? expiresAt.toISOString() : null,
  };
}

import Decimal from "decimal.js";
import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { newId } from "../ids";
import { credits as toDecimal, creditsToSql, type CreditAmount } from "../money";
import { type Actor, recordActivity } from "../accounts/activity";
import type { ReversalKind } from "../vocab/payments";

/**
 * Refunds and lost disputes (docs/billing.md, Refunds and disputes of payments). A reversal takes
 * back its share of the payment's credits: `credits × reversed minor units / amount`, exactly, to six
 * decimals (cumulated over the payment's reversals, so partial refunds that add up to the whole
 * payment take back exactly its credits, and never more).
 *
 * What the credits were spent on cannot be undone, and the balance never goes below zero (the
 * CHECKs of credit_balances, and a Call's reservation must stay covered). So a reversal takes what
 * the account's paid credits hold now — the paid balance less its live expiring lots (operator grants
 * that expire keep their own order) and never below what Calls in flight reserve — and the rest is
 * the account's debt, kept on the reversal (`credits - credits_recovered`). The account's next
 * purchase settles it first, in the transaction of its grant. Each take is a `consume_payment_refund`
 * row (source_ref_id = the reversal's id), so the ledger shows when and from what the debt was paid.
 *
 * Every function here runs inside the caller's transaction, which has locked the account's balance
 * row first (`lockBalance`), the order every writer of balances uses.
 */

const STRIPE: Actor = { type: "system", label: "Stripe" };

/** Locks the account's balance row (the first lock of every payment transaction); false when the account does not exist. */
export async function lockBalance(tx: Db, accountId: string): Promise<boolean> {
  return rows(await tx.execute(sql`SELECT account_id FROM credit_balances WHERE account_id = ${accountId} FOR UPDATE`)).length > 0;
}

export interface ReversalInput {
  accountId: string;
  paymentId: string;
  kind: ReversalKind;
  /** Stripe's id of the refund (`re_…`) or dispute (`dp_…`): one reversal per id. */
  stripeId: string;
  amountMinor: number;
  currency: string;
}

export interface ReversalResult {
  reversal_id: string;
  /** False when this Stripe id was reversed before (nothing done again). */
  created: boolean;
  credits: string;
  credits_recovered: string;
  debt_credits: string;
}

/**
 * Records a reversal once per Stripe id and takes what it can of its credits now. The caller holds
 * the balance lock; the payment row is locked here, so two reversals of one payment count each
 * other's minor units.
 */
export async function reversePayment(tx: Db, input: ReversalInput): Promise<ReversalResult> {
  const payment = rows<{ credits: string; amount_minor: string | number; reversed_minor: string | number }>(
    await tx.execute(sql`
      SELECT p.credits::text AS credits, p.amount_minor,
             (SELECT coalesce(sum(v.amount_minor), 0) FROM payment_reversals v WHERE v.payment_id = p.id) AS reversed_minor
        FROM payments p WHERE p.id = ${input.paymentId} AND p.account_id = ${input.accountId} AND p.status = 'succeeded' FOR UPDATE OF p`),
  )[0];
  if (!payment) throw new Error(`reversePayment: payment ${input.paymentId} is not a succeeded payment of ${input.accountId}`);
  const existing = rows<{ id: string; credits: string; credits_recovered: string }>(
    await tx.execute(sql`SELECT id, credits::text AS credits, credits_recovered::text AS credits_recovered FROM payment_reversals WHERE stripe_id = ${input.stripeId}`),
  )[0];
  if (existing) return { reversal_id: existing.id, created: false, credits: existing.credits, credits_recovered: existing.credits_recovered, debt_credits: await outstanding(tx, input.accountId) };

  const amount = Number(payment.amount_minor);
  const before = Math.min(Number(payment.reversed_minor), amount);
  const after = Math.min(before + input.amountMinor, amount);
  const share = (minor: number) => toDecimal(payment.credits).times(minor).dividedBy(amount).toDecimalPlaces(6, Decimal.ROUND_DOWN);
  const owed = share(after).minus(share(before));
  const id = newId("rev");
  await tx.execute(sql`
    INSERT INTO payment_reversals (id, account_id, payment_id, kind, stripe_id, amount_minor, currency, credits)
    VALUES (${id}, ${input.accountId}, ${input.paymentId}, ${input.kind}, ${input.stripeId}, ${input.amountMinor}, ${input.currency}, ${creditsToSql(owed)}::numeric)`);
  await recordActivity(tx, input.accountId, STRIPE, {
    action: "credits.reversed",
    objectType: "payment",
    objectId: input.paymentId,
    after: { reversal_id: id, kind: input.kind, stripe_id: input.stripeId, amount_minor: input.amountMinor, currency: input.currency, credits: owed.toFixed() },
  });
  await settleDebts(tx, input.accountId);
  const settled = rows<{ credits_recovered: string }>(await tx.execute(sql`SELECT credits_recovered::text AS credits_recovered FROM payment_reversals WHERE id = ${id}`))[0];
  return { reversal_id: id, created: true, credits: owed.toFixed(6), credits_recovered: settled.credits_recovered, debt_credits: await outstanding(tx, input.accountId) };
}

/**
 * Takes what the account's paid credits hold of its reversals' outstanding credits, oldest reversal
 * first: after a reversal, and after each purchase's grant (`settledBy` names that payment). Returns
 * the ledger rows written.
 */
export async function settleDebts(tx: Db, accountId: string, settledBy?: string): Promise<{ ledger_entry_id: string; reversal_id: string; credits: string }[]> {
  const owing = rows<{ id: string; payment_id: string; kind: ReversalKind; stripe_id: string; amount_minor: string | number; currency: string; credits: string; outstanding: string }>(
    await tx.execute(sql`
      SELECT id, payment_id, kind, stripe_id, amount_minor, currency, credits::text AS credits, (credits - credits_recovered)::text AS outstanding
        FROM payment_reversals WHERE account_id = ${accountId} AND credits_recovered < credits
       ORDER BY created_at, id FOR UPDATE`),
  );
  const written: { ledger_entry_id: string; reversal_id: string; credits: string }[] = [];
  if (owing.length === 0) return written;
  let available = await takeable(tx, accountId);
  for (const r of owing) {
    if (available.lte(0)) break;
    const take = minOf(toDecimal(r.outstanding), available);
    const amount = creditsToSql(take);
    const ledgerId = newId("led");
    const metadata = {
      credit_split: { bonus: "0.000000", reward: "0.000000", paid: take.toFixed(6) },
      reversal_id: r.id,
      payment_id: r.payment_id,
      kind: r.kind,
      stripe_id: r.stripe_id,
      amount_minor: Number(r.amount_minor),
      currency: r.currency,
      credits_reversed: toDecimal(r.credits).toFixed(6),
      ...(settledBy ? { settled_by_payment_id: settledBy } : {}),
    };
    const what = r.kind === "refund" ? `Refund ${r.stripe_id}` : `Lost dispute ${r.stripe_id}`;
    const description = settledBy ? `${what} of payment ${r.payment_id}, settled from payment ${settledBy}` : `${what} of payment ${r.payment_id}`;
    await tx.execute(sql`
      WITH b AS (
        UPDATE credit_balances SET paid_credits = paid_credits - ${amount}::numeric, updated_at = now()
         WHERE account_id = ${accountId}
     RETURNING paid_credits + bonus_credits + reward_credits AS total_after
      ), r AS (
        UPDATE payment_reversals SET credits_recovered = credits_recovered + ${amount}::numeric,
               ledger_entry_id = coalesce(ledger_entry_id, ${ledgerId}), updated_at = now()
         WHERE id = ${r.id}
      )
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                  balance_before, balance_after, ledger_metadata, description)
      SELECT ${ledgerId}, ${accountId}, 'consume_payment_refund', -${amount}::numeric, 'stripe', 'payment_reversal', ${r.id},
             b.total_after + ${amount}::numeric, b.total_after, ${JSON.stringify(metadata)}::jsonb, ${description}
        FROM b`);
    written.push({ ledger_entry_id: ledgerId, reversal_id: r.id, credits: take.toFixed(6) });
    available = available.minus(take);
  }
  return written;
}

const minOf = (a: CreditAmount, b: CreditAmount) => (a.lte(b) ? a : b);

/**
 * What a reversal may take now: the paid credits outside live expiring lots, and no more than keeps
 * the balance at or above what Calls in flight reserve. Read under the balance lock, by a statement
 * whose snapshot follows the lock, so every lot committed before it is seen.
 */
async function takeable(tx: Db, accountId: string): Promise<CreditAmount> {
  const found = rows<{ takeable: string }>(
    await tx.execute(sql`
      SELECT greatest(least(b.paid_credits - coalesce(l.held, 0), b.paid_credits + b.bonus_credits + b.reward_credits - b.reserved_credits), 0)::text AS takeable
        FROM credit_balances b
        LEFT JOIN (SELECT sum(remaining_credits) AS held FROM credit_grants WHERE account_id = ${accountId} AND kind = 'paid' AND expired_at IS NULL) l ON true
       WHERE b.account_id = ${accountId}`),
  )[0];
  return toDecimal(found?.takeable ?? "0");
}

async function outstanding(tx: Db, accountId: string): Promise<string> {
  return rows<{ debt: string }>(
    await tx.execute(sql`SELECT coalesce(sum(credits - credits_recovered), 0)::text AS debt FROM payment_reversals WHERE account_id = ${accountId} AND credits_recovered < credits`),
  )[0].debt;
}

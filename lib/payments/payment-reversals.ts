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
 * A refund Stripe fails after it succeeded (`refund.failed`: the money came back to Stripe) is undone
 * once (`undoRefund`): what its rows took is given back by one grant, its debt is no longer owed, and
 * it counts no more in the payment's reversed amount. The ledger stays append-only: the undo is a row
 * of its own, never an edit of the rows it offsets.
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
  /** The refund failed since (or before it was reversed here): the reversal is undone and stays so. */
  undone: boolean;
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
             (SELECT coalesce(sum(v.amount_minor), 0) FROM payment_reversals v WHERE v.payment_id = p.id AND v.failed_at IS NULL) AS reversed_minor
        FROM payments p WHERE p.id = ${input.paymentId} AND p.account_id = ${input.accountId} AND p.status = 'succeeded' FOR UPDATE OF p`),
  )[0];
  if (!payment) throw new Error(`reversePayment: payment ${input.paymentId} is not a succeeded payment of ${input.accountId}`);
  const existing = rows<{ id: string; credits: string; credits_recovered: string; undone: boolean }>(
    await tx.execute(sql`SELECT id, credits::text AS credits, credits_recovered::text AS credits_recovered, failed_at IS NOT NULL AS undone FROM payment_reversals WHERE stripe_id = ${input.stripeId}`),
  )[0];
  if (existing) {
    return { reversal_id: existing.id, created: false, undone: existing.undone, credits: existing.credits, credits_recovered: existing.credits_recovered, debt_credits: await debtCredits(tx, input.accountId) };
  }

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
  return { reversal_id: id, created: true, undone: false, credits: owed.toFixed(6), credits_recovered: settled.credits_recovered, debt_credits: await debtCredits(tx, input.accountId) };
}

export interface RefundFailureInput {
  accountId: string;
  paymentId: string;
  /** Stripe's id of the refund that failed (`re_…`). */
  stripeId: string;
  amountMinor: number;
  currency: string;
  /** Stripe's `failure_reason` (expired_or_canceled_card, lost_or_stolen_card, unknown). */
  reason: string | null;
}

export interface RefundFailureResult {
  reversal_id: string;
  /**
   * undone: the reversal was undone now; recorded: the refund had not been reversed here, its failure
   * is recorded (no ledger row) so that a late event saying it succeeded reverses nothing;
   * duplicate: done before (nothing done again).
   */
  outcome: "undone" | "recorded" | "duplicate";
  credits_returned: string;
  debt_cancelled: string;
  ledger_entry_id: string | null;
  debt_credits: string;
}

/**
 * Undoes the reversal of a refund Stripe failed, once per refund id: gives back exactly what its
 * `consume_payment_refund` rows took (`credits_recovered`, one `grant_payment_recharge` row of paid
 * credits, source_ref_type `payment_reversal_undo`, whose unique index on the Stripe grant's source
 * holds the once), owes its debt no more (`failed_at`), and lets the credits given back settle the
 * account's other debts as a purchase's would. The caller holds the balance lock; the reversal row
 * is locked here.
 */
export async function undoRefund(tx: Db, input: RefundFailureInput): Promise<RefundFailureResult> {
  const found = rows<{ id: string; payment_id: string; kind: ReversalKind; undone: boolean; credits: string; credits_recovered: string; amount_minor: string | number; currency: string; undo_ledger_entry_id: string | null }>(
    await tx.execute(sql`
      SELECT id, payment_id, kind, failed_at IS NOT NULL AS undone, credits::text AS credits, credits_recovered::text AS credits_recovered, amount_minor, currency, undo_ledger_entry_id
        FROM payment_reversals WHERE stripe_id = ${input.stripeId} FOR UPDATE`),
  )[0];
  if (found && (found.kind !== "refund" || found.payment_id !== input.paymentId)) throw new Error(`undoRefund: ${input.stripeId} is not a refund of payment ${input.paymentId}`);
  if (!found) {
    const id = newId("rev");
    await tx.execute(sql`
      INSERT INTO payment_reversals (id, account_id, payment_id, kind, stripe_id, amount_minor, currency, credits, failed_at)
      VALUES (${id}, ${input.accountId}, ${input.paymentId}, 'refund', ${input.stripeId}, ${input.amountMinor}, ${input.currency}, 0, now())`);
    return { reversal_id: id, outcome: "recorded", credits_returned: "0", debt_cancelled: "0", ledger_entry_id: null, debt_credits: await debtCredits(tx, input.accountId) };
  }
  if (found.undone) {
    return { reversal_id: found.id, outcome: "duplicate", credits_returned: "0", debt_cancelled: "0", ledger_entry_id: found.undo_ledger_entry_id, debt_credits: await debtCredits(tx, input.accountId) };
  }

  const returned = toDecimal(found.credits_recovered);
  const cancelled = toDecimal(found.credits).minus(returned);
  const amountMinor = Number(found.amount_minor);
  let ledgerId: string | null = null;
  if (returned.gt(0)) {
    ledgerId = newId("led");
    const amount = creditsToSql(returned);
    const metadata = {
      credit_kind: "paid",
      reversal_id: found.id,
      payment_id: found.payment_id,
      kind: found.kind,
      stripe_id: input.stripeId,
      amount_minor: amountMinor,
      currency: found.currency,
      credits_reversed: toDecimal(found.credits).toFixed(6),
      credits_returned: returned.toFixed(6),
      debt_cancelled: cancelled.toFixed(6),
      failure_reason: input.reason,
    };
    const description = `Refund ${input.stripeId} of payment ${found.payment_id} failed: the ${returned.toFixed(6)} credits it took back are given back`;
    await tx.execute(sql`
      WITH b AS (
        UPDATE credit_balances SET paid_credits = paid_credits + ${amount}::numeric, updated_at = now()
         WHERE account_id = ${input.accountId}
     RETURNING paid_credits + bonus_credits + reward_credits AS total_after
      )
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id,
                                  balance_before, balance_after, ledger_metadata, description)
      SELECT ${ledgerId}, ${input.accountId}, 'grant_payment_recharge', ${amount}::numeric, 'stripe', 'payment_reversal_undo', ${found.id},
             b.total_after - ${amount}::numeric, b.total_after, ${JSON.stringify(metadata)}::jsonb, ${description}
        FROM b`);
  }
  await tx.execute(sql`UPDATE payment_reversals SET failed_at = now(), undo_ledger_entry_id = ${ledgerId}, updated_at = now() WHERE id = ${found.id}`);
  await recordActivity(tx, input.accountId, STRIPE, {
    action: "credits.reversal_undone",
    objectType: "payment",
    objectId: found.payment_id,
    after: {
      reversal_id: found.id,
      stripe_id: input.stripeId,
      amount_minor: amountMinor,
      currency: found.currency,
      amount_credits: returned.toFixed(),
      debt_cancelled: cancelled.toFixed(),
      ledger_entry_id: ledgerId,
      reason: input.reason,
    },
  });
  if (returned.gt(0)) await settleDebts(tx, input.accountId, { undoneReversalId: found.id });
  return { reversal_id: found.id, outcome: "undone", credits_returned: returned.toFixed(6), debt_cancelled: cancelled.toFixed(6), ledger_entry_id: ledgerId, debt_credits: await debtCredits(tx, input.accountId) };
}

/** What paid credits settled a debt: a purchase's grant, or the credits an undone refund gave back. */
export type SettledBy = { paymentId: string } | { undoneReversalId: string };

/**
 * Takes what the account's paid credits hold of its reversals' outstanding credits, oldest reversal
 * first: after a reversal, after each purchase's grant and after an undo's (`settledBy` names where
 * the credits came from). Undone reversals owe nothing. Returns the ledger rows written.
 */
export async function settleDebts(tx: Db, accountId: string, settledBy?: SettledBy): Promise<{ ledger_entry_id: string; reversal_id: string; credits: string }[]> {
  const owing = rows<{ id: string; payment_id: string; kind: ReversalKind; stripe_id: string; amount_minor: string | number; currency: string; credits: string; outstanding: string }>(
    await tx.execute(sql`
      SELECT id, payment_id, kind, stripe_id, amount_minor, currency, credits::text AS credits, (credits - credits_recovered)::text AS outstanding
        FROM payment_reversals WHERE account_id = ${accountId} AND credits_recovered < credits AND failed_at IS NULL
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
      ...(settledBy && "paymentId" in settledBy ? { settled_by_payment_id: settledBy.paymentId } : {}),
      ...(settledBy && "undoneReversalId" in settledBy ? { settled_by_reversal_undo: settledBy.undoneReversalId } : {}),
    };
    const what = r.kind === "refund" ? `Refund ${r.stripe_id}` : `Lost dispute ${r.stripe_id}`;
    const from = !settledBy ? "" : "paymentId" in settledBy ? `, settled from payment ${settledBy.paymentId}` : `, settled from the credits given back by undone reversal ${settledBy.undoneReversalId}`;
    const description = `${what} of payment ${r.payment_id}${from}`;
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

/** Credits refunds and lost disputes still owe the account (what its next purchase settles first), as a decimal string; undone reversals owe nothing. */
export async function debtCredits(db: Db, accountId: string): Promise<string> {
  return rows<{ debt: string }>(
    await db.execute(sql`SELECT coalesce(sum(credits - credits_recovered), 0)::text AS debt FROM payment_reversals WHERE account_id = ${accountId} AND credits_recovered < credits AND failed_at IS NULL`),
  )[0].debt;
}

import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { logger } from "../log";
import { notify } from "../alerts/notify-sql";
import type { PaymentConfig } from "./payment-config";
import { reconcilePayments, unmatchedStatuses, type ReconciliationLine } from "./reconcile-payments";
import { startTicker } from "../ticker";

/**
 * The nightly reconciliation (docs/billing.md, Reconciliation): once a UTC day, one instance
 * reconciles the day before for every account. Each instance ticks; the one whose claim of the
 * day's row succeeds runs it, the others find it claimed or finished. The claim is a lease (an
 * instance that died mid-run is taken over after LEASE), not a lock held by a transaction: the run
 * waits on Stripe, and the embedded database has one connection. Each unmatched line of an account
 * is a `payment_unmatched` notification, once per line (its claim key), and a warning for the
 * operator; a line of no account (another product's charge) is only the warning.
 */

const LEASE = "15 minutes";
const TICK_MS = 10 * 60_000;
const FIRST_TICK_MS = 2 * 60_000;

export type NightlyOutcome =
  | { status: "finished_before" | "busy"; day: string }
  | { status: "reconciled"; day: string; lines: number; unmatched: number; notified: number };

const yesterday = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1)).toISOString().slice(0, 10);
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** What identifies a finding across runs: the balance transaction or the refused event, else our reversal or payment. */
const findingKey = (l: ReconciliationLine) => `payment_unmatched:${l.status}:${l.stripe_balance_transaction_id ?? l.stripe_event_id ?? l.reversal_id ?? l.payment_id}`;

/** Reconciles the UTC day before `now` unless it has been (or is being) reconciled. */
export async function reconcileYesterday(db: Db, config: PaymentConfig, now: Date = new Date()): Promise<NightlyOutcome> {
  const day = yesterday(now);
  const claimed = rows(
    await db.execute(sql`
      INSERT INTO payment_reconciliation_runs (day, claimed_at) VALUES (${day}::date, now())
      ON CONFLICT (day) DO UPDATE SET claimed_at = now(), attempts = payment_reconciliation_runs.attempts + 1, error = NULL
       WHERE payment_reconciliation_runs.finished_at IS NULL
         AND (payment_reconciliation_runs.claimed_at IS NULL OR payment_reconciliation_runs.claimed_at < now() - interval '${sql.raw(LEASE)}')
      RETURNING day`),
  );
  if (claimed.length === 0) {
    const run = rows<{ finished_at: Date | string | null }>(await db.execute(sql`SELECT finished_at FROM payment_reconciliation_runs WHERE day = ${day}::date`))[0];
    return { status: run?.finished_at ? "finished_before" : "busy", day };
  }
  try {
    const report = await reconcilePayments(db, { from: day, to: nextDay(day) }, config, { cache: null });
    const unmatched = report.lines.filter((l) => unmatchedStatuses.includes(l.status));
    let notified = 0;
    for (const l of unmatched) {
      if (!l.account_id) continue;
      const exists = rows(await db.execute(sql`SELECT 1 FROM accounts WHERE id = ${l.account_id}`)).length > 0;
      if (!exists) continue;
      const payload = {
        day,
        status: l.status,
        kind: l.kind,
        currency: l.currency,
        amount_minor: l.amount_minor,
        ledger_amount_minor: l.ledger_amount_minor,
        credits: l.credits,
        payment_id: l.payment_id,
        reversal_id: l.reversal_id,
        ledger_entry_ids: l.ledger_entry_ids,
        stripe_balance_transaction_id: l.stripe_balance_transaction_id,
        stripe_source_id: l.stripe_source_id,
        stripe_payment_intent_id: l.stripe_payment_intent_id,
        stripe_event_id: l.stripe_event_id,
        detail: l.detail,
      };
      if ((await notify(db, { accountId: l.account_id, kind: "payment_unmatched", claimKey: findingKey(l), payload })).created) notified += 1;
    }
    if (unmatched.length > 0) {
      logger.warn(
        { day, unmatched: unmatched.map((l) => ({ status: l.status, kind: l.kind, account_id: l.account_id, payment_id: l.payment_id, stripe: l.stripe_balance_transaction_id ?? l.stripe_event_id ?? l.stripe_source_id, detail: l.detail })) },
        "payments reconciliation: lines do not match (npm run cli -- payments reconcile)",
      );
    }
    await db.execute(sql`
      UPDATE payment_reconciliation_runs SET finished_at = now(), lines = ${report.lines.length}, unmatched = ${unmatched.length}, notified = ${notified}
       WHERE day = ${day}::date`);
    return { status: "reconciled", day, lines: report.lines.length, unmatched: unmatched.length, notified };
  } catch (err) {
    // Released at once, so the next tick of any instance tries again.
    await db.execute(sql`UPDATE payment_reconciliation_runs SET claimed_at = NULL, error = ${(err as Error).message.slice(0, 2000)} WHERE day = ${day}::date`);
    throw err;
  }
}

/** Every instance ticks every ten minutes; the first tick of a UTC day that claims it reconciles the day before. */
export function startPaymentReconciliation(db: Db, config: PaymentConfig, on: { done?: (o: NightlyOutcome) => void; error?: (err: Error) => void } = {}): () => void {
  return startTicker(() => reconcileYesterday(db, config), { firstMs: FIRST_TICK_MS, everyMs: TICK_MS }, {
    result: (o) => {
      if (o.status === "reconciled") on.done?.(o);
    },
    error: on.error,
  });
}

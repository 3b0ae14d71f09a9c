import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { invalidInput, notFound } from "../errors";
import { credits as toDecimal, creditsToNumber, type CreditAmount } from "../money";
import type { Actor } from "../accounts/activity";
import { paymentConfigOrThrow, type PaymentConfig } from "./payment-config";
import { METADATA } from "./payments";
import { reconcileStatuses, type ReconcileKind, type ReconcileStatus } from "../vocab/payments";
import { applyStripeEvent } from "./stripe-events";
import { Stripe, stripeClient, stripeFailure } from "./stripe-client";

/**
 * The payments reconciliation (docs/billing.md, Reconciliation): Stripe's balance transactions of a
 * period matched to our payments, reversals and their ledger rows, and our side walked back for
 * what Stripe does not have. Stripe is listed over the period widened by a day on each side, so a
 * payment whose charge fell just across a boundary from its grant is matched there and not reported
 * missing; only transactions inside the period are lines.
 */


/** The statuses that are a finding: each is a notification in the nightly run. */
export const unmatchedStatuses: readonly ReconcileStatus[] = ["missing_in_ledger", "missing_in_stripe", "amount_differs"];

export interface ReconciliationLine {
  status: ReconcileStatus;
  kind: ReconcileKind;
  /** Stripe's time of the balance transaction; ours (the grant or the reversal) when Stripe has none. */
  created_at: string;
  currency: string;
  /** Stripe's balance transaction, signed (money out negative); null when it is not in Stripe. */
  amount_minor: number | null;
  fee_minor: number | null;
  net_minor: number | null;
  /** What Stripe's charge, refund or dispute says, in its own currency (the figure compared with ours). */
  stripe_source_amount_minor: number | null;
  /** What our payment or reversal says, signed like Stripe's; null when we have none. */
  ledger_amount_minor: number | null;
  /** Credits granted (positive) or taken back (negative) by our side; for a charge missing in the ledger, what its metadata would grant. */
  credits: number | null;
  account_id: string | null;
  payment_id: string | null;
  reversal_id: string | null;
  /** The grant (`grant_payment_recharge`) or the reversal's `consume_payment_refund` rows. */
  ledger_entry_ids: string[];
  stripe_balance_transaction_id: string | null;
  /** The charge (`ch_…`), refund (`re_…`), dispute (`dp_…`) or payout (`po_…`). */
  stripe_source_id: string | null;
  stripe_payment_intent_id: string | null;
  detail: string | null;
}

export interface CurrencyTotals {
  currency: string;
  /** Charges less refunds and dispute losses (Stripe's amounts; payouts and fee lines are apart). */
  gross_minor: number;
  /** Stripe's fees: those taken from each transaction, plus Stripe's own fee lines. */
  fee_minor: number;
  /** gross − fees. */
  net_minor: number;
  payouts_minor: number;
  credits_granted: number;
  credits_reversed: number;
  lines: number;
  unmatched: number;
}

export interface ReconciliationReport {
  /** The period, UTC, half-open [from, to). */
  from: string;
  to: string;
  /** The account the report is scoped to; null: every account, with Stripe's fees and payouts. */
  account_id: string | null;
  generated_at: string;
  counts: Record<ReconcileStatus, number>;
  unmatched: number;
  totals: CurrencyTotals[];
  lines: ReconciliationLine[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

/** `YYYY-MM-DD` days (UTC midnight), or full ISO-8601 times; [from, to), at most a year. */
export function reconcilePeriod(from: string, to: string): { from: Date; to: Date } {
  const parse = (name: string, raw: string) => {
    const at = new Date(DAY.test(raw) ? `${raw}T00:00:00Z` : raw);
    if (!raw || Number.isNaN(at.getTime())) throw invalidInput(`${name} must be a date (YYYY-MM-DD, UTC) or an ISO-8601 time, got "${raw.slice(0, 40)}"`);
    return at;
  };
  const period = { from: parse("from", from), to: parse("to", to) };
  if (period.to <= period.from) throw invalidInput("to must be after from (the period is [from, to))");
  if (period.to.getTime() - period.from.getTime() > MAX_DAYS * DAY_MS) throw invalidInput(`A reconciliation covers at most ${MAX_DAYS} days`);
  return period;
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (typeof v === "string" ? v : (v?.id ?? null));
const iso = (v: Date | string) => new Date(v).toISOString();
const inList = (ids: string[]): SQL => sql.join(ids.map((id) => sql`${id}`), sql`, `);

interface PaymentRow {
  id: string;
  account_id: string;
  status: string;
  credits: string;
  amount_minor: string | number;
  currency: string;
  stripe_payment_intent_id: string | null;
  stripe_charge_id: string | null;
  ledger_entry_id: string | null;
  succeeded_at: Date | string | null;
  grant_id: string | null;
}

interface ReversalRow {
  id: string;
  account_id: string;
  payment_id: string;
  kind: string;
  stripe_id: string;
  amount_minor: string | number;
  currency: string;
  credits: string;
  created_at: Date | string;
  stripe_payment_intent_id: string | null;
  ledger_ids: string[] | null;
}

/** A reversal's side of a line: what Tollgate took back, for which payment, in which ledger rows. */
function reversalSide(v: ReversalRow) {
  return {
    ledger_amount_minor: -Number(v.amount_minor),
    credits: -creditsToNumber(v.credits),
    account_id: v.account_id,
    payment_id: v.payment_id,
    reversal_id: v.id,
    ledger_entry_ids: v.ledger_ids ?? [],
  };
}

const SELECT_PAYMENT = sql`
  SELECT p.id, p.account_id, p.status, p.credits::text AS credits, p.amount_minor, p.currency, p.stripe_payment_intent_id, p.stripe_charge_id,
         p.ledger_entry_id, p.succeeded_at,
         (SELECT l.id FROM credits_ledger l WHERE l.source_system = 'stripe' AND l.entry_type = 'grant_payment_recharge' AND l.source_ref_id = p.id) AS grant_id
    FROM payments p`;

const SELECT_REVERSAL = sql`
  SELECT v.id, v.account_id, v.payment_id, v.kind, v.stripe_id, v.amount_minor, v.currency, v.credits::text AS credits, v.created_at, p.stripe_payment_intent_id,
         (SELECT array_agg(l.id ORDER BY l.seq) FROM credits_ledger l
           WHERE l.source_system = 'stripe' AND l.source_ref_type = 'payment_reversal' AND l.source_ref_id = v.id) AS ledger_ids
    FROM payment_reversals v JOIN payments p ON p.id = v.payment_id`;

async function paymentById(db: Db, id: string): Promise<PaymentRow | undefined> {
  return rows<PaymentRow>(await db.execute(sql`${SELECT_PAYMENT} WHERE p.id = ${id}`))[0];
}

/** Stripe's balance transactions created in [from, to), their sources expanded. */
async function listStripe(config: PaymentConfig, from: Date, to: Date): Promise<Stripe.BalanceTransaction[]> {
  const out: Stripe.BalanceTransaction[] = [];
  try {
    const list = stripeClient(config).balanceTransactions.list({
      created: { gte: Math.floor(from.getTime() / 1000), lt: Math.ceil(to.getTime() / 1000) },
      limit: 100,
      expand: ["data.source"],
    });
    for await (const txn of list) out.push(txn);
  } catch (err) {
    throw stripeFailure(err, "listing balance transactions", config, "nothing was reconciled; try again shortly");
  }
  return out;
}

/** The withdrawal Stripe made when a dispute opened (any time), for a loss recorded later. */
async function disputeWithdrawal(config: PaymentConfig, disputeId: string): Promise<{ txnId: string; at: string; disputeAmount: number; currency: string } | undefined> {
  let dispute: Stripe.Dispute;
  try {
    dispute = await stripeClient(config).disputes.retrieve(disputeId);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) return undefined;
    throw stripeFailure(err, `reading dispute ${disputeId}`, config, "nothing was reconciled; try again shortly");
  }
  const txn = (dispute.balance_transactions ?? []).find((t) => t.amount < 0);
  return txn ? { txnId: txn.id, at: new Date(txn.created * 1000).toISOString(), disputeAmount: dispute.amount, currency: dispute.currency } : undefined;
}

function kindOf(txn: Stripe.BalanceTransaction): ReconcileKind {
  const source = txn.source as { object?: string } | string | null;
  const object = typeof source === "object" && source !== null ? source.object : undefined;
  if (txn.type === "charge" || txn.type === "payment") return "charge";
  if (txn.type === "refund" || txn.type === "payment_refund") return "refund";
  // Stripe withdraws a disputed amount when the dispute opens (negative) and reinstates it if won (positive: other).
  if (txn.type === "adjustment" && (object === "dispute" || String(idOf(txn.source as never) ?? "").startsWith("dp_")) && txn.amount < 0) return "dispute_loss";
  if (txn.type === "payout") return "payout";
  if (txn.type === "stripe_fee" || txn.reporting_category === "fee") return "fee";
  return "other";
}

/** The payment intent a charge, refund or dispute belongs to. */
function intentOf(source: unknown): string | null {
  if (source === null || typeof source !== "object") return null;
  return idOf((source as { payment_intent?: string | { id: string } | null }).payment_intent);
}

/** Builds the report; `accountId` keeps only that account's lines (fees and payouts belong to no account). */
export async function reconcilePayments(db: Db, input: { from: string; to: string; accountId?: string }, config: PaymentConfig = paymentConfigOrThrow()): Promise<ReconciliationReport> {
  const period = reconcilePeriod(input.from, input.to);
  const listed = await listStripe(config, new Date(period.from.getTime() - DAY_MS), new Date(period.to.getTime() + DAY_MS));
  const inPeriod = (seconds: number) => seconds * 1000 >= period.from.getTime() && seconds * 1000 < period.to.getTime();

  const intents = [...new Set(listed.filter((t) => kindOf(t) === "charge").map((t) => intentOf(t.source)).filter((v): v is string => v !== null))];
  const chargeIds = listed.filter((t) => kindOf(t) === "charge").map((t) => idOf(t.source as never)).filter((v): v is string => v !== null);
  const reversalIds = listed.filter((t) => ["refund", "dispute_loss"].includes(kindOf(t))).map((t) => idOf(t.source as never)).filter((v): v is string => v !== null);
  const byIntent = new Map<string, PaymentRow>();
  const byCharge = new Map<string, PaymentRow>();
  if (intents.length + chargeIds.length > 0) {
    const found = rows<PaymentRow>(
      await db.execute(sql`${SELECT_PAYMENT}
        WHERE ${intents.length > 0 ? sql`p.stripe_payment_intent_id IN (${inList(intents)})` : sql`false`}
           OR ${chargeIds.length > 0 ? sql`p.stripe_charge_id IN (${inList(chargeIds)})` : sql`false`}`),
    );
    for (const p of found) {
      if (p.stripe_payment_intent_id) byIntent.set(p.stripe_payment_intent_id, p);
      if (p.stripe_charge_id) byCharge.set(p.stripe_charge_id, p);
    }
  }
  const byStripeId = new Map<string, ReversalRow>();
  if (reversalIds.length > 0) {
    for (const v of rows<ReversalRow>(await db.execute(sql`${SELECT_REVERSAL} WHERE v.stripe_id IN (${inList(reversalIds)})`))) byStripeId.set(v.stripe_id, v);
  }
  // Payment intents Stripe knows and we do not: their metadata says whose they would be.
  const metadataOf = new Map<string, Stripe.Metadata>();
  const intentMetadata = async (intentId: string | null): Promise<Stripe.Metadata | undefined> => {
    if (!intentId) return undefined;
    if (!metadataOf.has(intentId)) {
      try {
        metadataOf.set(intentId, (await stripeClient(config).paymentIntents.retrieve(intentId)).metadata ?? {});
      } catch (err) {
        throw stripeFailure(err, `reading payment intent ${intentId}`, config, "nothing was reconciled; try again shortly");
      }
    }
    return metadataOf.get(intentId);
  };
  // The payment a refund or dispute is of, found by its intent when our reversal is missing.
  const paymentsOfIntents = async (ids: string[]) => {
    const missing = ids.filter((id) => !byIntent.has(id));
    if (missing.length === 0) return;
    for (const p of rows<PaymentRow>(await db.execute(sql`${SELECT_PAYMENT} WHERE p.stripe_payment_intent_id IN (${inList(missing)})`))) byIntent.set(p.stripe_payment_intent_id!, p);
  };

  const lines: ReconciliationLine[] = [];
  const seenPayments = new Set<string>();
  const seenReversals = new Set<string>();
  for (const txn of listed) {
    const kind = kindOf(txn);
    const sourceId = idOf(txn.source as never);
    const source = typeof txn.source === "object" && txn.source !== null ? (txn.source as unknown as { amount?: number; currency?: string; metadata?: Stripe.Metadata }) : null;
    const intentId = intentOf(txn.source);
    const base: ReconciliationLine = {
      status: "no_ledger_side",
      kind,
      created_at: new Date(txn.created * 1000).toISOString(),
      currency: txn.currency,
      amount_minor: txn.amount,
      fee_minor: txn.fee,
      net_minor: txn.net,
      stripe_source_amount_minor: typeof source?.amount === "number" ? source.amount : null,
      ledger_amount_minor: null,
      credits: null,
      account_id: null,
      payment_id: null,
      reversal_id: null,
      ledger_entry_ids: [],
      stripe_balance_transaction_id: txn.id,
      stripe_source_id: sourceId,
      stripe_payment_intent_id: intentId,
      detail: null,
    };
    const sourceCurrency = source?.currency ?? txn.currency;
    const sourceAmount = Math.abs(base.stripe_source_amount_minor ?? txn.amount);
    if (kind === "charge") {
      const payment = (intentId ? byIntent.get(intentId) : undefined) ?? (sourceId ? byCharge.get(sourceId) : undefined);
      if (payment) seenPayments.add(payment.id);
      if (!inPeriod(txn.created)) continue;
      if (payment && payment.status === "succeeded" && payment.grant_id) {
        const same = Number(payment.amount_minor) === sourceAmount && payment.currency === sourceCurrency;
        lines.push({
          ...base,
          status: same ? "matched" : "amount_differs",
          ledger_amount_minor: Number(payment.amount_minor),
          credits: creditsToNumber(payment.credits),
          account_id: payment.account_id,
          payment_id: payment.id,
          ledger_entry_ids: [payment.grant_id],
          detail: same ? null : `Stripe charged ${sourceAmount} ${sourceCurrency}, the payment is ${payment.amount_minor} ${payment.currency}`,
        });
        continue;
      }
      const meta = await intentMetadata(intentId);
      // The webhook never came: the pending payment knows its Checkout session, not yet its payment intent.
      const recorded = payment ?? (meta?.[METADATA.paymentId] ? await paymentById(db, meta[METADATA.paymentId]) : undefined);
      if (recorded) seenPayments.add(recorded.id);
      const paymentId = recorded?.id ?? meta?.[METADATA.paymentId] ?? null;
      const accountId = recorded?.account_id ?? meta?.[METADATA.accountId] ?? null;
      const wouldGrant = recorded?.credits ?? meta?.[METADATA.credits];
      lines.push({
        ...base,
        status: "missing_in_ledger",
        ledger_amount_minor: recorded ? Number(recorded.amount_minor) : null,
        credits: wouldGrant && /^\d+(\.\d{1,6})?$/.test(wouldGrant) ? creditsToNumber(wouldGrant) : null,
        account_id: accountId,
        payment_id: paymentId,
        detail: paymentId
          ? `no grant for this charge (payment ${recorded ? recorded.status : "not recorded"}): apply it with \`payments reconcile --apply ${txn.id} --confirm\``
          : "a charge without Tollgate's metadata (not a purchase of credits)",
      });
      continue;
    }
    if (kind === "refund" || kind === "dispute_loss") {
      const reversal = sourceId ? byStripeId.get(sourceId) : undefined;
      if (reversal) seenReversals.add(reversal.id);
      if (!inPeriod(txn.created)) continue;
      if (reversal) {
        const same = Number(reversal.amount_minor) === sourceAmount && reversal.currency === sourceCurrency;
        lines.push({
          ...base,
          status: same ? "matched" : "amount_differs",
          ...reversalSide(reversal),
          stripe_payment_intent_id: intentId ?? reversal.stripe_payment_intent_id,
          detail: same ? null : `Stripe gave back ${sourceAmount} ${sourceCurrency}, the reversal says ${reversal.amount_minor} ${reversal.currency}`,
        });
        continue;
      }
      const disputeStatus = kind === "dispute_loss" ? (source as { status?: string } | null)?.status : undefined;
      if (disputeStatus !== undefined && disputeStatus !== "lost") {
        // An open dispute: Stripe holds the money back, the ledger takes credits back only if it is lost.
        if (intentId) await paymentsOfIntents([intentId]);
        const disputed = intentId ? byIntent.get(intentId) : undefined;
        lines.push({
          ...base,
          account_id: disputed?.account_id ?? null,
          payment_id: disputed?.id ?? null,
          detail: `dispute ${disputeStatus}: Stripe withdrew the amount while it is open; credits are taken back only if it is lost`,
        });
        continue;
      }
      if (intentId) await paymentsOfIntents([intentId]);
      const payment = intentId ? byIntent.get(intentId) : undefined;
      const meta = payment ? undefined : await intentMetadata(intentId);
      const paymentId = payment?.id ?? meta?.[METADATA.paymentId] ?? null;
      lines.push({
        ...base,
        status: "missing_in_ledger",
        account_id: payment?.account_id ?? meta?.[METADATA.accountId] ?? null,
        payment_id: paymentId,
        detail: paymentId
          ? `no reversal of this ${kind === "refund" ? "refund" : "lost dispute"}: Stripe's event did not reach Tollgate (resend it from Stripe's dashboard)`
          : `a ${kind === "refund" ? "refund" : "dispute"} of a charge without Tollgate's metadata`,
      });
      continue;
    }
    if (inPeriod(txn.created)) lines.push(base);
  }

  // Our side of the period that no balance transaction (in the period or a day around it) matched.
  const scope = input.accountId ? sql`AND p.account_id = ${input.accountId}` : sql``;
  const ours = rows<PaymentRow>(
    await db.execute(sql`${SELECT_PAYMENT}
      WHERE p.status = 'succeeded' AND p.succeeded_at >= ${period.from.toISOString()}::timestamptz AND p.succeeded_at < ${period.to.toISOString()}::timestamptz ${scope}
      ORDER BY p.succeeded_at, p.id`),
  );
  for (const p of ours.filter((p) => !seenPayments.has(p.id))) {
    lines.push({
      status: "missing_in_stripe",
      kind: "charge",
      created_at: iso(p.succeeded_at!),
      currency: p.currency,
      amount_minor: null,
      fee_minor: null,
      net_minor: null,
      stripe_source_amount_minor: null,
      ledger_amount_minor: Number(p.amount_minor),
      credits: creditsToNumber(p.credits),
      account_id: p.account_id,
      payment_id: p.id,
      reversal_id: null,
      ledger_entry_ids: p.grant_id ? [p.grant_id] : [],
      stripe_balance_transaction_id: null,
      stripe_source_id: p.stripe_charge_id,
      stripe_payment_intent_id: p.stripe_payment_intent_id,
      detail: "granted, but Stripe lists no balance transaction for its charge in this period",
    });
  }
  const reversals = rows<ReversalRow>(
    await db.execute(sql`${SELECT_REVERSAL}
      WHERE v.created_at >= ${period.from.toISOString()}::timestamptz AND v.created_at < ${period.to.toISOString()}::timestamptz
            ${input.accountId ? sql`AND v.account_id = ${input.accountId}` : sql``}
      ORDER BY v.created_at, v.id`),
  );
  for (const v of reversals.filter((v) => !seenReversals.has(v.id))) {
    // A dispute lost after Stripe withdrew its amount in an earlier period: matched to that withdrawal, which counted there.
    const withdrawal = v.kind === "dispute_lost" ? await disputeWithdrawal(config, v.stripe_id) : undefined;
    if (withdrawal) {
      const same = Number(v.amount_minor) === withdrawal.disputeAmount && v.currency === withdrawal.currency;
      lines.push({
        status: same ? "matched" : "amount_differs",
        kind: "dispute_loss",
        created_at: iso(v.created_at),
        currency: v.currency,
        amount_minor: null,
        fee_minor: null,
        net_minor: null,
        stripe_source_amount_minor: withdrawal.disputeAmount,
        ...reversalSide(v),
        stripe_balance_transaction_id: withdrawal.txnId,
        stripe_source_id: v.stripe_id,
        stripe_payment_intent_id: v.stripe_payment_intent_id,
        detail: `lost now; Stripe withdrew the amount on ${withdrawal.at} (that period's totals count it)`,
      });
      continue;
    }
    lines.push({
      status: "missing_in_stripe",
      kind: v.kind === "refund" ? "refund" : "dispute_loss",
      created_at: iso(v.created_at),
      currency: v.currency,
      amount_minor: null,
      fee_minor: null,
      net_minor: null,
      stripe_source_amount_minor: null,
      ...reversalSide(v),
      stripe_balance_transaction_id: null,
      stripe_source_id: v.stripe_id,
      stripe_payment_intent_id: v.stripe_payment_intent_id,
      detail: "reversed in the ledger, but Stripe lists no balance transaction for it in this period",
    });
  }

  const scoped = (input.accountId ? lines.filter((l) => l.account_id === input.accountId) : lines).sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || (a.stripe_balance_transaction_id ?? a.payment_id ?? "").localeCompare(b.stripe_balance_transaction_id ?? b.payment_id ?? ""),
  );
  return {
    from: period.from.toISOString(),
    to: period.to.toISOString(),
    account_id: input.accountId ?? null,
    generated_at: new Date().toISOString(),
    counts: Object.fromEntries(reconcileStatuses.map((s) => [s, scoped.filter((l) => l.status === s).length])) as Record<ReconcileStatus, number>,
    unmatched: scoped.filter((l) => unmatchedStatuses.includes(l.status)).length,
    totals: totalsOf(scoped),
    lines: scoped,
  };
}

function totalsOf(lines: ReconciliationLine[]): CurrencyTotals[] {
  const by = new Map<string, Omit<CurrencyTotals, "credits_granted" | "credits_reversed"> & { granted: CreditAmount; reversed: CreditAmount }>();
  for (const l of lines) {
    const t = by.get(l.currency) ?? { currency: l.currency, gross_minor: 0, fee_minor: 0, net_minor: 0, payouts_minor: 0, granted: toDecimal(0), reversed: toDecimal(0), lines: 0, unmatched: 0 };
    by.set(l.currency, t);
    t.lines += 1;
    if (unmatchedStatuses.includes(l.status)) t.unmatched += 1;
    const amount = l.amount_minor ?? 0;
    if (l.kind === "payout") t.payouts_minor += amount;
    else if (l.kind === "fee") t.fee_minor += -amount;
    else {
      t.gross_minor += amount;
      t.fee_minor += l.fee_minor ?? 0;
    }
    // Credits our ledger holds for lines it has (a charge missing in the ledger granted nothing),
    // counted in the period of Stripe's transaction: a dispute lost after the period of its withdrawal counts there.
    const elsewhere = l.amount_minor === null && l.status !== "missing_in_stripe";
    if (l.credits !== null && l.ledger_entry_ids.length > 0 && !elsewhere) {
      if (l.credits >= 0) t.granted = t.granted.plus(l.credits);
      else t.reversed = t.reversed.plus(-l.credits);
    }
  }
  return [...by.values()]
    .sort((a, b) => a.currency.localeCompare(b.currency))
    .map(({ granted, reversed, ...t }) => ({ ...t, net_minor: t.gross_minor - t.fee_minor, credits_granted: creditsToNumber(granted), credits_reversed: creditsToNumber(reversed) }));
}

export interface ApplyResult {
  /** granted: the grant was written now; would_grant: not confirmed, nothing written; already_granted: nothing to do. */
  outcome: "granted" | "would_grant" | "already_granted" | string;
  payment_id: string;
  account_id: string;
  credits: string;
  amount_minor: number;
  currency: string;
  stripe_payment_intent_id: string;
  ledger_entry_id: string | null;
}

/**
 * Heals a charge Stripe took whose grant never landed (the webhook's deliveries all failed): the
 * payment intent's `payment_intent.succeeded` is applied through the webhook's own code path under a
 * synthetic event id, so the grant is written once (the payment's conditional move to succeeded)
 * and a later delivery of Stripe's events finds it granted. `id`: a balance transaction, a charge
 * or a payment intent. Without `confirm`, says what it would grant and writes nothing.
 */
export async function applyMissingGrant(db: Db, input: { id: string; confirm: boolean; actor: Actor }, config: PaymentConfig = paymentConfigOrThrow()): Promise<ApplyResult> {
  const stripe = stripeClient(config);
  let intent: Stripe.PaymentIntent;
  try {
    let intentId = input.id;
    if (input.id.startsWith("txn_")) {
      const txn = await stripe.balanceTransactions.retrieve(input.id, { expand: ["source"] });
      intentId = intentOf(txn.source) ?? "";
    } else if (input.id.startsWith("ch_")) {
      intentId = idOf((await stripe.charges.retrieve(input.id)).payment_intent) ?? "";
    }
    if (!intentId.startsWith("pi_")) throw invalidInput(`${input.id} is not a charge of a payment intent: give a balance transaction (txn_…), a charge (ch_…) or a payment intent (pi_…) of a purchase`);
    intent = await stripe.paymentIntents.retrieve(intentId);
  } catch (err) {
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) throw notFound(`Stripe has no ${input.id}`);
    throw stripeFailure(err, `reading ${input.id}`, config);
  }
  const meta = intent.metadata ?? {};
  const paymentId = meta[METADATA.paymentId];
  const accountId = meta[METADATA.accountId];
  if (!paymentId || !accountId) throw invalidInput(`Payment intent ${intent.id} carries no Tollgate metadata: it is not a purchase of credits`);
  if (intent.status !== "succeeded") throw invalidInput(`Payment intent ${intent.id} is ${intent.status}: only a succeeded payment is granted`);
  const result = { payment_id: paymentId, account_id: accountId, credits: meta[METADATA.credits] ?? "", amount_minor: intent.amount_received, currency: intent.currency, stripe_payment_intent_id: intent.id };
  const existing = rows<{ status: string; ledger_entry_id: string | null }>(await db.execute(sql`SELECT status, ledger_entry_id FROM payments WHERE id = ${paymentId}`))[0];
  if (existing?.status === "succeeded") return { ...result, outcome: "already_granted", ledger_entry_id: existing.ledger_entry_id };
  if (!input.confirm) return { ...result, outcome: "would_grant", ledger_entry_id: null };
  const event = {
    id: `evt_reconcile_${intent.id}`,
    object: "event",
    type: "payment_intent.succeeded",
    created: Math.floor(Date.now() / 1000),
    data: { object: intent },
    livemode: intent.livemode,
    pending_webhooks: 0,
    request: { id: null, idempotency_key: null },
    api_version: null,
  } as unknown as Stripe.Event;
  const applied = await applyStripeEvent(db, event, config, input.actor);
  const after = rows<{ status: string; ledger_entry_id: string | null }>(await db.execute(sql`SELECT status, ledger_entry_id FROM payments WHERE id = ${paymentId}`))[0];
  return { ...result, outcome: applied.duplicate ? `already_applied (${applied.outcome})` : applied.outcome, ledger_entry_id: after?.ledger_entry_id ?? null };
}

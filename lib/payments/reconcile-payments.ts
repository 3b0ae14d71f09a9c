import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { invalidInput, notFound } from "../errors";
import { credits as toDecimal, creditsToNumber, creditsToSql, isCreditString, type CreditAmount } from "../money";
import type { Actor } from "../accounts/activity";
import { paymentConfigOrThrow, priceRefusal, type PaymentConfig } from "./payment-config";
import { METADATA } from "./payments";
import { reconcileStatuses, type ReconcileKind, type ReconcileStatus } from "../vocab/payments";
import { applyStripeEvent } from "./stripe-events";
import { isStripeError, stripeClient, stripeFailure, type Stripe } from "./stripe-client";

/**
 * The payments reconciliation (docs/billing.md, Reconciliation): Stripe's balance transactions of a
 * period matched to our payments, reversals (and the undos of refunds Stripe failed) and their
 * ledger rows by their ids (whenever ours were written), and our side of the period walked back for
 * what they did not match, its Stripe side looked up by id: found in another period, it is named
 * here and counted there; not found, it is missing in Stripe. Money and credits count in the period of Stripe's transaction, once.
 */


/** The statuses that are a finding: each is a notification in the nightly run. */
export const unmatchedStatuses: readonly ReconcileStatus[] = ["missing_in_ledger", "missing_in_stripe", "amount_differs", "refused_event"];

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
  /** Credits granted or given back by an undo (positive), or taken back (negative), by our side; for a charge missing in the ledger, what its metadata would grant. */
  credits: number | null;
  account_id: string | null;
  payment_id: string | null;
  reversal_id: string | null;
  /** The grant (`grant_payment_recharge`), the reversal's `consume_payment_refund` rows, or the undo grant of a failed refund. */
  ledger_entry_ids: string[];
  stripe_balance_transaction_id: string | null;
  /** The charge (`ch_…`), refund (`re_…`), dispute (`dp_…`) or payout (`po_…`). */
  stripe_source_id: string | null;
  stripe_payment_intent_id: string | null;
  /** The Stripe event a `refused_event` line is (`evt_…`); null on the others. */
  stripe_event_id: string | null;
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
  /** Credits refunds and lost disputes took back, less those of refunds Stripe failed (so below zero in a period holding only failures). */
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
  /** Stripe failed the refund: the reversal was undone then, by `undo_ledger_entry_id` (none when it had taken nothing). */
  failed_at: Date | string | null;
  undo_ledger_entry_id: string | null;
  stripe_payment_intent_id: string | null;
  ledger_ids: string[] | null;
}

/** Our side of a line: the money and credits the ledger moved, whose, and in which rows. */
type OurSide = Pick<ReconciliationLine, "ledger_amount_minor" | "credits" | "account_id" | "payment_id" | "reversal_id" | "ledger_entry_ids">;

/** A payment's side of a line: what it cost, the credits it granted, in which ledger row. */
function paymentSide(p: PaymentRow): OurSide {
  return {
    ledger_amount_minor: Number(p.amount_minor),
    credits: creditsToNumber(p.credits),
    account_id: p.account_id,
    payment_id: p.id,
    reversal_id: null,
    ledger_entry_ids: p.grant_id ? [p.grant_id] : [],
  };
}

/** An undone reversal's side (the refund Stripe failed): the money and credits given back, in the undo's ledger row. */
function undoSide(v: ReversalRow): OurSide {
  return {
    ledger_amount_minor: Number(v.amount_minor),
    credits: creditsToNumber(v.credits),
    account_id: v.account_id,
    payment_id: v.payment_id,
    reversal_id: v.id,
    ledger_entry_ids: v.undo_ledger_entry_id ? [v.undo_ledger_entry_id] : [],
  };
}

/** A line of ours for which Stripe has no balance transaction at all. */
function missingInStripe(
  kind: ReconcileKind,
  at: Date | string,
  currency: string,
  side: OurSide,
  stripe: { source: string | null; paymentIntent: string | null },
  detail: string,
): ReconciliationLine {
  return {
    status: "missing_in_stripe",
    kind,
    created_at: iso(at),
    currency,
    amount_minor: null,
    fee_minor: null,
    net_minor: null,
    stripe_source_amount_minor: null,
    ...side,
    stripe_balance_transaction_id: null,
    stripe_source_id: stripe.source,
    stripe_payment_intent_id: stripe.paymentIntent,
    stripe_event_id: null,
    detail,
  };
}

/** A reversal's side of a line: what Tollgate took back, for which payment, in which ledger rows. */
function reversalSide(v: ReversalRow): OurSide {
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
  SELECT v.id, v.account_id, v.payment_id, v.kind, v.stripe_id, v.amount_minor, v.currency, v.credits::text AS credits, v.created_at, v.failed_at, v.undo_ledger_entry_id,
         p.stripe_payment_intent_id,
         (SELECT array_agg(l.id ORDER BY l.seq) FROM credits_ledger l
           WHERE l.source_system = 'stripe' AND l.source_ref_type = 'payment_reversal' AND l.source_ref_id = v.id) AS ledger_ids
    FROM payment_reversals v JOIN payments p ON p.id = v.payment_id`;

async function paymentById(db: Db, id: string): Promise<PaymentRow | undefined> {
  return rows<PaymentRow>(await db.execute(sql`${SELECT_PAYMENT} WHERE p.id = ${id}`))[0];
}

/** What a report reads of a balance transaction's source (the charge, refund, dispute or payout). */
interface TxnSource {
  id: string;
  object: string | null;
  amount: number | null;
  currency: string | null;
  payment_intent: string | null;
  status: string | null;
}

/** What a report reads of a balance transaction: kept small, since listings are cached. */
interface Txn {
  id: string;
  type: string;
  reporting_category: string;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  created: number;
  source: TxnSource | string | null;
}

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A balance transaction as a report keeps it, its source expanded or not. */
function slim(txn: { id: string; type: string; reporting_category: string; amount: number; fee: number; net: number; currency: string; created: number; source: unknown }): Txn {
  const { id, type, reporting_category, amount, fee, net, currency, created } = txn;
  let source: Txn["source"] = text(txn.source);
  if (txn.source !== null && typeof txn.source === "object") {
    const o = txn.source as Record<string, unknown>;
    source = {
      id: String(o.id),
      object: text(o.object),
      amount: typeof o.amount === "number" ? o.amount : null,
      currency: text(o.currency),
      payment_intent: idOf(o.payment_intent as string | { id: string } | null | undefined),
      status: text(o.status),
    };
  }
  return { id, type, reporting_category, amount, fee, net, currency, created, source };
}

const sourceIdOf = (txn: Txn): string | null => (typeof txn.source === "string" ? txn.source : (txn.source?.id ?? null));
/** The payment intent a charge, refund or dispute belongs to. */
const intentOf = (txn: Txn): string | null => (typeof txn.source === "object" ? (txn.source?.payment_intent ?? null) : null);

/** Stripe's balance transactions created in [from, to), their sources expanded. */
async function listStripe(config: PaymentConfig, from: Date, to: Date): Promise<Txn[]> {
  const out: Txn[] = [];
  try {
    const list = (await stripeClient(config)).balanceTransactions.list({
      created: { gte: Math.floor(from.getTime() / 1000), lt: Math.ceil(to.getTime() / 1000) },
      limit: 100,
      expand: ["data.source"],
    });
    for await (const txn of list) out.push(slim(txn));
  } catch (err) {
    throw stripeFailure(err, "listing balance transactions", config, "nothing was reconciled; try again shortly");
  }
  return out;
}

/** `read`'s answer, or undefined when Stripe has no such object; another failure fails the report. */
async function unless404<T>(config: PaymentConfig, what: string, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isStripeError(err, "StripeInvalidRequestError") && err.statusCode === 404) return undefined;
    throw stripeFailure(err, what, config, "nothing was reconciled; try again shortly");
  }
}

/** The balance transaction `ref` names (or is, when expanded), with `source` as its source. */
async function transactionOf(config: PaymentConfig, ref: string | Stripe.BalanceTransaction | null, source: { id: string }): Promise<Txn | undefined> {
  if (ref === null) return undefined;
  const txn = typeof ref === "string" ? await unless404(config, `reading balance transaction ${ref}`, async () => (await stripeClient(config)).balanceTransactions.retrieve(ref)) : ref;
  return txn && slim({ ...txn, source });
}

/** Stripe's balance transaction of a payment's charge, by the charge's id (or its payment intent's latest charge), whatever its date. */
async function chargeTransaction(config: PaymentConfig, p: PaymentRow): Promise<Txn | undefined> {
  const stripe = await stripeClient(config);
  const chargeById = (id: string) => unless404(config, `reading charge ${id}`, () => stripe.charges.retrieve(id, { expand: ["balance_transaction"] }));
  let charge: Stripe.Charge | undefined;
  if (p.stripe_charge_id) charge = await chargeById(p.stripe_charge_id);
  else if (p.stripe_payment_intent_id) {
    const intentId = p.stripe_payment_intent_id;
    const latest = (await unless404(config, `reading payment intent ${intentId}`, () => stripe.paymentIntents.retrieve(intentId, { expand: ["latest_charge"] })))?.latest_charge;
    charge = typeof latest === "string" ? await chargeById(latest) : (latest ?? undefined);
  }
  return charge ? transactionOf(config, charge.balance_transaction, charge) : undefined;
}

/** Stripe's refund of a reversal, whatever its date: found among its payment intent's refunds (a payment has few). */
async function refundOf(config: PaymentConfig, v: ReversalRow, expand: string): Promise<Stripe.Refund | undefined> {
  if (!v.stripe_payment_intent_id) return undefined;
  try {
    for await (const refund of (await stripeClient(config)).refunds.list({ payment_intent: v.stripe_payment_intent_id, limit: 100, expand: [expand] })) {
      if (refund.id === v.stripe_id) return refund;
    }
  } catch (err) {
    throw stripeFailure(err, `listing the refunds of ${v.stripe_payment_intent_id}`, config, "nothing was reconciled; try again shortly");
  }
  return undefined;
}

/** Stripe's balance transaction of a refund, whatever its date. */
async function refundTransaction(config: PaymentConfig, v: ReversalRow): Promise<Txn | undefined> {
  const found = await refundOf(config, v, "data.balance_transaction");
  return found ? transactionOf(config, found.balance_transaction ?? null, found) : undefined;
}

/** Stripe's `refund_failure` of a failed refund (the money it gave back), whatever its date. */
async function refundFailureTransaction(config: PaymentConfig, v: ReversalRow): Promise<Txn | undefined> {
  const found = await refundOf(config, v, "data.failure_balance_transaction");
  return found ? transactionOf(config, found.failure_balance_transaction ?? null, found) : undefined;
}

/** The withdrawal Stripe made when a dispute opened (any time), for a loss recorded in another period. */
async function disputeTransaction(config: PaymentConfig, disputeId: string): Promise<Txn | undefined> {
  const dispute = await unless404(config, `reading dispute ${disputeId}`, async () => (await stripeClient(config)).disputes.retrieve(disputeId));
  const withdrawal = (dispute?.balance_transactions ?? []).find((t) => t.amount < 0);
  return dispute && withdrawal ? slim({ ...withdrawal, source: dispute }) : undefined;
}

function kindOf(txn: Txn): ReconcileKind {
  const object = typeof txn.source === "object" ? txn.source?.object : null;
  if (txn.type === "charge" || txn.type === "payment") return "charge";
  if (txn.type === "refund" || txn.type === "payment_refund") return "refund";
  if (txn.type === "refund_failure") return "refund_failure";
  // Stripe withdraws a disputed amount when the dispute opens (negative) and reinstates it if won (positive: other).
  if (txn.type === "adjustment" && (object === "dispute" || (sourceIdOf(txn) ?? "").startsWith("dp_")) && txn.amount < 0) return "dispute_loss";
  if (txn.type === "payout") return "payout";
  if (txn.type === "stripe_fee" || txn.reporting_category === "fee") return "fee";
  return "other";
}

const noun = (kind: ReconcileKind) => (kind === "dispute_loss" ? "dispute withdrawal" : kind === "refund_failure" ? "refund failure" : kind);
const details = (...parts: (string | null)[]): string | null => parts.filter((p): p is string => p !== null).join("; ") || null;

/** Stripe's side of a line, and the figure compared with ours: the charge's, refund's or dispute's own amount, in its currency. */
function stripeSide(txn: Txn): { line: ReconciliationLine; sourceAmount: number; sourceCurrency: string } {
  const source = typeof txn.source === "object" ? txn.source : null;
  const line: ReconciliationLine = {
    status: "no_ledger_side",
    kind: kindOf(txn),
    created_at: new Date(txn.created * 1000).toISOString(),
    currency: txn.currency,
    amount_minor: txn.amount,
    fee_minor: txn.fee,
    net_minor: txn.net,
    stripe_source_amount_minor: source?.amount ?? null,
    ledger_amount_minor: null,
    credits: null,
    account_id: null,
    payment_id: null,
    reversal_id: null,
    ledger_entry_ids: [],
    stripe_balance_transaction_id: txn.id,
    stripe_source_id: sourceIdOf(txn),
    stripe_payment_intent_id: intentOf(txn),
    stripe_event_id: null,
    detail: null,
  };
  return { line, sourceAmount: Math.abs(source?.amount ?? txn.amount), sourceCurrency: source?.currency ?? txn.currency };
}

/**
 * Our side of the period whose Stripe transaction is dated in another period: named here with
 * Stripe's ids and amounts compared, its money (and its credits) counted in that period's totals.
 */
function elsewhere(line: ReconciliationLine, ours: Date | string): ReconciliationLine {
  return {
    ...line,
    created_at: iso(ours),
    amount_minor: null,
    fee_minor: null,
    net_minor: null,
    detail: details(line.detail, `Stripe's ${noun(line.kind)} is dated ${line.created_at}, in another period: that period's totals count its money and credits`),
  };
}

/** A period's listing, and the payment intents' metadata the reports built on it have read. */
interface Listing {
  /** When the listing began, by the database's clock: our side written since may have Stripe transactions the listing lacks. */
  startedAt: string;
  transactions: Promise<Txn[]>;
  intentMetadata: Map<string, Stripe.Metadata>;
}

/**
 * Recent listings of Stripe's balance transactions by Stripe account and period, for the API's
 * reports of one account each: every such report lists the whole Stripe account, so one listing
 * serves every account's for `ttlMs` from when it began (an open period's newest transactions
 * appear within that), reports at the same time share it, and an account whose payments or
 * reversals were written since it began lists afresh. At most `maxEntries` periods and
 * `maxTransactions` transactions are held, the least recently used dropped first; a listing larger
 * than that is not kept.
 */
export class BalanceTransactionCache {
  private readonly entries = new Map<string, Listing & { listedAtMs: number; size: number }>();

  constructor(private readonly options: { ttlMs: number; maxEntries: number; maxTransactions: number; now?: () => number }) {}

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  /** The listing of `key` while it is younger than the TTL. */
  get(key: string): Listing | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (this.now() - entry.listedAtMs >= this.options.ttlMs) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  /** Keeps `listing` as the one of `key`, replacing any, within the bounds; a failed listing is forgotten. */
  put(key: string, listing: Listing): Listing {
    const entry = { ...listing, listedAtMs: this.now(), size: 0 };
    this.entries.delete(key);
    this.entries.set(key, entry);
    const current = () => this.entries.get(key) === entry;
    entry.transactions.then(
      (txns) => {
        entry.size = txns.length;
        if (current() && txns.length > this.options.maxTransactions) this.entries.delete(key);
        this.trim();
      },
      () => {
        if (current()) this.entries.delete(key);
      },
    );
    this.trim();
    return entry;
  }

  private trim() {
    const now = this.now();
    for (const [key, e] of this.entries) if (now - e.listedAtMs >= this.options.ttlMs) this.entries.delete(key);
    let held = [...this.entries.values()].reduce((n, e) => n + e.size, 0);
    for (const [key, e] of this.entries) {
      if (this.entries.size <= this.options.maxEntries && held <= this.options.maxTransactions) break;
      this.entries.delete(key);
      held -= e.size;
    }
  }
}

/** The API's listings: a minute, 16 periods, 20,000 transactions (a few hundred bytes each as kept). */
const sharedListings = new BalanceTransactionCache({ ttlMs: 60_000, maxEntries: 16, maxTransactions: 20_000 });

const listingKey = (config: PaymentConfig, period: { from: Date; to: Date }) =>
  createHash("sha256")
    .update(JSON.stringify([config.secretKey, config.api ?? null, period.from.toISOString(), period.to.toISOString()]))
    .digest("hex");

/** Whether a payment or a reversal (of the account, or any) was written at or after `since`; an account's through its payments' index. */
async function recordedSince(db: Db, since: string, accountId: string | undefined): Promise<boolean> {
  const scope = accountId ? sql`AND p.account_id = ${accountId}` : sql``;
  const [row] = rows<{ changed: boolean }>(
    await db.execute(sql`
      SELECT EXISTS (SELECT 1 FROM payments p WHERE p.updated_at >= ${since}::timestamptz ${scope})
          OR EXISTS (SELECT 1 FROM payment_reversals v JOIN payments p ON p.id = v.payment_id WHERE v.updated_at >= ${since}::timestamptz ${scope}) AS changed`),
  );
  return row?.changed === true;
}

/** The period's listing: the cache's, unless our side changed since it began, or a new one. */
async function listingOf(db: Db, config: PaymentConfig, period: { from: Date; to: Date }, accountId: string | undefined, cache: BalanceTransactionCache | null): Promise<Listing> {
  const key = listingKey(config, period);
  const cached = cache?.get(key);
  if (cached && !(await recordedSince(db, cached.startedAt, accountId))) return cached;
  const [{ now }] = rows<{ now: Date | string }>(await db.execute(sql`SELECT now() AS now`));
  const listing: Listing = { startedAt: iso(now), transactions: listStripe(config, period.from, period.to), intentMetadata: new Map() };
  return cache ? cache.put(key, listing) : listing;
}

export interface ReconcileOptions {
  /** Where listings are shared between reports (by default the API's, for a minute); null lists Stripe afresh (the operator's CLI, the nightly run). */
  cache?: BalanceTransactionCache | null;
}

/** Builds the report; `accountId` keeps only that account's lines (fees and payouts belong to no account). */
export async function reconcilePayments(
  db: Db,
  input: { from: string; to: string; accountId?: string },
  config: PaymentConfig = paymentConfigOrThrow(),
  options: ReconcileOptions = {},
): Promise<ReconciliationReport> {
  const period = reconcilePeriod(input.from, input.to);
  const listing = await listingOf(db, config, period, input.accountId, options.cache === undefined ? sharedListings : options.cache);
  const listed = await listing.transactions;
  const inPeriod = (seconds: number) => seconds * 1000 >= period.from.getTime() && seconds * 1000 < period.to.getTime();
  const outside = (at: Date | string | null) => at !== null && !inPeriod(new Date(at).getTime() / 1000);
  // An account's report skips the lines it will not keep before asking anything more of Stripe.
  const othersLine = (accountId: string | null | undefined) => input.accountId !== undefined && typeof accountId === "string" && accountId !== input.accountId;

  const charges = listed.filter((t) => kindOf(t) === "charge");
  const intents = [...new Set(charges.map(intentOf).filter((v): v is string => v !== null))];
  const chargeIds = charges.map(sourceIdOf).filter((v): v is string => v !== null);
  const reversalIds = listed
    .filter((t) => ["refund", "refund_failure", "dispute_loss"].includes(kindOf(t)))
    .map(sourceIdOf)
    .filter((v): v is string => v !== null);
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
  // Payment intents Stripe knows and we do not: their metadata says whose they would be (read once per listing).
  const intentMetadata = async (intentId: string | null): Promise<Stripe.Metadata | undefined> => {
    if (!intentId) return undefined;
    if (!listing.intentMetadata.has(intentId)) {
      try {
        const stripe = await stripeClient(config);
        listing.intentMetadata.set(intentId, (await stripe.paymentIntents.retrieve(intentId)).metadata ?? {});
      } catch (err) {
        throw stripeFailure(err, `reading payment intent ${intentId}`, config, "nothing was reconciled; try again shortly");
      }
    }
    return listing.intentMetadata.get(intentId);
  };
  // The payment a refund or dispute is of, found by its intent when our reversal is missing.
  const paymentsOfIntents = async (ids: string[]) => {
    const missing = ids.filter((id) => !byIntent.has(id));
    if (missing.length === 0) return;
    for (const p of rows<PaymentRow>(await db.execute(sql`${SELECT_PAYMENT} WHERE p.stripe_payment_intent_id IN (${inList(missing)})`))) byIntent.set(p.stripe_payment_intent_id!, p);
  };

  /** A charge our payment granted: matched, or the amounts differ; a grant written in another period says when. */
  const granted = (side: ReturnType<typeof stripeSide>, payment: PaymentRow): ReconciliationLine => {
    const same = Number(payment.amount_minor) === side.sourceAmount && payment.currency === side.sourceCurrency;
    return {
      ...side.line,
      status: same ? "matched" : "amount_differs",
      ...paymentSide(payment),
      detail: details(
        same ? null : `Stripe charged ${side.sourceAmount} ${side.sourceCurrency}, the payment is ${payment.amount_minor} ${payment.currency}`,
        outside(payment.succeeded_at) ? `granted on ${iso(payment.succeeded_at!)}, in another period (its credits count here, with Stripe's charge)` : null,
      ),
    };
  };
  /** A refund or lost dispute our reversal took back: matched, or the amounts differ; a reversal written in another period says when. */
  const reversed = (side: ReturnType<typeof stripeSide>, v: ReversalRow): ReconciliationLine => {
    const same = Number(v.amount_minor) === side.sourceAmount && v.currency === side.sourceCurrency;
    return {
      ...side.line,
      status: same ? "matched" : "amount_differs",
      ...reversalSide(v),
      stripe_payment_intent_id: side.line.stripe_payment_intent_id ?? v.stripe_payment_intent_id,
      detail: details(
        same ? null : `Stripe gave back ${side.sourceAmount} ${side.sourceCurrency}, the reversal says ${v.amount_minor} ${v.currency}`,
        outside(v.created_at) ? `reversed in the ledger on ${iso(v.created_at)}, in another period (its credits count here, with Stripe's ${noun(side.line.kind)})` : null,
        v.failed_at ? `Stripe failed the refund since: undone on ${iso(v.failed_at)}` : null,
      ),
    };
  };
  /** A refund Stripe failed (its money back in Stripe's balance) whose reversal the ledger undid: matched, or the amounts differ. */
  const undone = (side: ReturnType<typeof stripeSide>, v: ReversalRow & { failed_at: Date | string }): ReconciliationLine => {
    const same = Number(v.amount_minor) === side.sourceAmount && v.currency === side.sourceCurrency;
    return {
      ...side.line,
      status: same ? "matched" : "amount_differs",
      ...undoSide(v),
      stripe_payment_intent_id: side.line.stripe_payment_intent_id ?? v.stripe_payment_intent_id,
      detail: details(
        same ? null : `Stripe's failed refund gave back ${side.sourceAmount} ${side.sourceCurrency}, the reversal says ${v.amount_minor} ${v.currency}`,
        outside(v.failed_at) ? `undone in the ledger on ${iso(v.failed_at)}, in another period (its credits count here, with Stripe's refund failure)` : null,
      ),
    };
  };
  const isUndone = (v: ReversalRow): v is ReversalRow & { failed_at: Date | string } => v.failed_at !== null;
  /** Nothing moved on either side: a refund that failed before it was reversed here, or before it took anything. */
  const movedNothing = (v: ReversalRow) => v.failed_at !== null && (v.ledger_ids ?? []).length === 0 && v.undo_ledger_entry_id === null;

  const lines: ReconciliationLine[] = [];
  const seenPayments = new Set<string>();
  const seenReversals = new Set<string>();
  const seenUndos = new Set<string>();
  for (const txn of listed) {
    const side = stripeSide(txn);
    const { kind, stripe_source_id: sourceId, stripe_payment_intent_id: intentId } = side.line;
    if (kind === "charge") {
      const payment = (intentId ? byIntent.get(intentId) : undefined) ?? (sourceId ? byCharge.get(sourceId) : undefined);
      if (payment) seenPayments.add(payment.id);
      if (othersLine(payment?.account_id)) continue;
      if (payment && payment.status === "succeeded" && payment.grant_id) {
        lines.push(granted(side, payment));
        continue;
      }
      // The webhook never came: the pending payment knows its Checkout session, not yet its payment intent, whose metadata names it.
      const meta = payment ? undefined : await intentMetadata(intentId);
      const recorded = payment ?? (meta?.[METADATA.paymentId] ? await paymentById(db, meta[METADATA.paymentId]) : undefined);
      if (recorded) seenPayments.add(recorded.id);
      const paymentId = recorded?.id ?? meta?.[METADATA.paymentId] ?? null;
      const accountId = recorded?.account_id ?? meta?.[METADATA.accountId] ?? null;
      const wouldGrant = recorded?.credits ?? meta?.[METADATA.credits];
      lines.push({
        ...side.line,
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
    if (kind === "refund_failure") {
      const reversal = sourceId ? byStripeId.get(sourceId) : undefined;
      if (reversal) seenUndos.add(reversal.id);
      if (othersLine(reversal?.account_id)) continue;
      if (reversal && isUndone(reversal)) {
        lines.push(undone(side, reversal));
        continue;
      }
      if (!reversal && intentId) await paymentsOfIntents([intentId]);
      const payment = reversal ? undefined : intentId ? byIntent.get(intentId) : undefined;
      const meta = reversal || payment ? undefined : await intentMetadata(intentId);
      const paymentId = reversal?.payment_id ?? payment?.id ?? meta?.[METADATA.paymentId] ?? null;
      lines.push({
        ...side.line,
        status: "missing_in_ledger",
        account_id: reversal?.account_id ?? payment?.account_id ?? meta?.[METADATA.accountId] ?? null,
        payment_id: paymentId,
        reversal_id: reversal?.id ?? null,
        detail: reversal
          ? `Stripe failed this refund and took its money back, but reversal ${reversal.id} was not undone: refund.failed did not reach Tollgate (resend it from Stripe's dashboard)`
          : paymentId
            ? "Stripe failed this refund and Tollgate has no record of it: its events did not reach Tollgate (resend refund.failed from Stripe's dashboard)"
            : "a failed refund of a charge without Tollgate's metadata",
      });
      continue;
    }
    if (kind === "refund" || kind === "dispute_loss") {
      const reversal = sourceId ? byStripeId.get(sourceId) : undefined;
      if (reversal) {
        seenReversals.add(reversal.id);
        if (!othersLine(reversal.account_id)) lines.push(reversed(side, reversal));
        continue;
      }
      const disputeStatus = kind === "dispute_loss" && typeof txn.source === "object" ? (txn.source?.status ?? null) : null;
      if (disputeStatus !== null && disputeStatus !== "lost") {
        // An open dispute: Stripe holds the money back, the ledger takes credits back only if it is lost.
        if (intentId) await paymentsOfIntents([intentId]);
        const disputed = intentId ? byIntent.get(intentId) : undefined;
        lines.push({
          ...side.line,
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
        ...side.line,
        status: "missing_in_ledger",
        account_id: payment?.account_id ?? meta?.[METADATA.accountId] ?? null,
        payment_id: paymentId,
        detail: paymentId
          ? `no reversal of this ${kind === "refund" ? "refund" : "lost dispute"}: Stripe's event did not reach Tollgate (resend it from Stripe's dashboard)`
          : `a ${kind === "refund" ? "refund" : "dispute"} of a charge without Tollgate's metadata`,
      });
      continue;
    }
    lines.push(side.line);
  }

  // Our side of the period that no balance transaction of the period matched: Stripe's is looked up by its ids, whatever its date.
  const scope = input.accountId ? sql`AND p.account_id = ${input.accountId}` : sql``;
  const ours = rows<PaymentRow>(
    await db.execute(sql`${SELECT_PAYMENT}
      WHERE p.status = 'succeeded' AND p.succeeded_at >= ${period.from.toISOString()}::timestamptz AND p.succeeded_at < ${period.to.toISOString()}::timestamptz ${scope}
      ORDER BY p.succeeded_at, p.id`),
  );
  for (const p of ours.filter((p) => !seenPayments.has(p.id))) {
    const found = await chargeTransaction(config, p);
    if (found) {
      const line = granted(stripeSide(found), p);
      lines.push(inPeriod(found.created) ? line : elsewhere(line, p.succeeded_at!));
      continue;
    }
    const stripe = { source: p.stripe_charge_id, paymentIntent: p.stripe_payment_intent_id };
    lines.push(missingInStripe("charge", p.succeeded_at!, p.currency, paymentSide(p), stripe, "granted, but Stripe has no balance transaction for its charge"));
  }
  const reversals = rows<ReversalRow>(
    await db.execute(sql`${SELECT_REVERSAL}
      WHERE v.created_at >= ${period.from.toISOString()}::timestamptz AND v.created_at < ${period.to.toISOString()}::timestamptz
            ${input.accountId ? sql`AND v.account_id = ${input.accountId}` : sql``}
      ORDER BY v.created_at, v.id`),
  );
  for (const v of reversals.filter((v) => !seenReversals.has(v.id))) {
    // A dispute lost after Stripe withdrew its amount in an earlier period matches that withdrawal.
    const found = v.kind === "dispute_lost" ? await disputeTransaction(config, v.stripe_id) : await refundTransaction(config, v);
    if (found) {
      const line = reversed(stripeSide(found), v);
      lines.push(inPeriod(found.created) ? line : elsewhere(line, v.created_at));
      continue;
    }
    if (movedNothing(v)) continue;
    const stripe = { source: v.stripe_id, paymentIntent: v.stripe_payment_intent_id };
    lines.push(missingInStripe(v.kind === "refund" ? "refund" : "dispute_loss", v.created_at, v.currency, reversalSide(v), stripe, "reversed in the ledger, but Stripe has no balance transaction for it"));
  }
  const undos = rows<ReversalRow>(
    await db.execute(sql`${SELECT_REVERSAL}
      WHERE v.failed_at >= ${period.from.toISOString()}::timestamptz AND v.failed_at < ${period.to.toISOString()}::timestamptz
            ${input.accountId ? sql`AND v.account_id = ${input.accountId}` : sql``}
      ORDER BY v.failed_at, v.id`),
  );
  for (const v of undos.filter((v): v is ReversalRow & { failed_at: Date | string } => isUndone(v) && !seenUndos.has(v.id))) {
    const found = await refundFailureTransaction(config, v);
    if (found) {
      const line = undone(stripeSide(found), v);
      lines.push(inPeriod(found.created) ? line : elsewhere(line, v.failed_at));
      continue;
    }
    if (movedNothing(v)) continue;
    const stripe = { source: v.stripe_id, paymentIntent: v.stripe_payment_intent_id };
    lines.push(missingInStripe("refund_failure", v.failed_at, v.currency, undoSide(v), stripe, "undone in the ledger (the refund failed), but Stripe has no refund_failure balance transaction for it"));
  }

  lines.push(...(await refusedEventLines(db, period, input.accountId, config)));

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

interface RefusedEventRow {
  event_id: string;
  type: string;
  outcome: string;
  detail: string | null;
  account_id: string | null;
  payment_id: string | null;
  stripe_object_id: string | null;
  stripe_payment_intent_id: string | null;
  amount_minor: string | number | null;
  currency: string | null;
  credits: string | null;
  received_at: Date | string;
}

/** What a refused event would have moved, by its type. */
const eventKind = (type: string): ReconcileKind =>
  type.startsWith("checkout.session.") || type.startsWith("payment_intent.") ? "charge" : type.startsWith("refund.") || type === "charge.refunded" ? "refund" : type.startsWith("charge.dispute.") ? "dispute_loss" : "other";

/**
 * The Stripe events the webhook refused in the period (another price, currency, Stripe account or
 * mode, an unknown or another account), as they came: nothing was granted or taken, so they carry
 * no ledger side and count in no totals but `lines` and `unmatched`. A refused card save is not
 * money and is left out.
 */
async function refusedEventLines(db: Db, period: { from: Date; to: Date }, accountId: string | undefined, config: PaymentConfig): Promise<ReconciliationLine[]> {
  const refused = rows<RefusedEventRow>(
    await db.execute(sql`
      SELECT event_id, type, outcome, detail, account_id, payment_id, stripe_object_id, stripe_payment_intent_id, amount_minor, currency, credits::text AS credits, received_at
        FROM stripe_events
       WHERE outcome LIKE 'refused\\_%' AND outcome <> 'refused_card'
         AND received_at >= ${period.from.toISOString()}::timestamptz AND received_at < ${period.to.toISOString()}::timestamptz
         ${accountId ? sql`AND account_id = ${accountId}` : sql``}
       ORDER BY received_at, event_id`),
  );
  return refused.map((e) => ({
    status: "refused_event",
    kind: eventKind(e.type),
    created_at: iso(e.received_at),
    currency: e.currency ?? config.currency,
    amount_minor: null,
    fee_minor: null,
    net_minor: null,
    stripe_source_amount_minor: e.amount_minor === null ? null : Number(e.amount_minor),
    ledger_amount_minor: null,
    credits: e.credits === null ? null : creditsToNumber(e.credits),
    account_id: e.account_id,
    payment_id: e.payment_id,
    reversal_id: null,
    ledger_entry_ids: [],
    stripe_balance_transaction_id: null,
    stripe_source_id: e.stripe_object_id,
    stripe_payment_intent_id: e.stripe_payment_intent_id,
    stripe_event_id: e.event_id,
    detail: `Stripe's ${e.type} was refused (${e.outcome}${e.detail ? `: ${e.detail}` : ""}); nothing was granted or taken`,
  }));
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
    // A failed refund's undo takes its reversal's credits off those reversed, as its money comes back into gross.
    const elsewhere = l.amount_minor === null && l.status !== "missing_in_stripe";
    if (l.credits !== null && l.ledger_entry_ids.length > 0 && !elsewhere) {
      if (l.kind === "refund_failure") t.reversed = t.reversed.minus(l.credits);
      else if (l.credits >= 0) t.granted = t.granted.plus(l.credits);
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
  const stripe = await stripeClient(config);
  let intent: Stripe.PaymentIntent;
  try {
    let intentId = input.id;
    if (input.id.startsWith("txn_")) {
      const txn = await stripe.balanceTransactions.retrieve(input.id, { expand: ["source"] });
      intentId = intentOf(slim(txn)) ?? "";
    } else if (input.id.startsWith("ch_")) {
      intentId = idOf((await stripe.charges.retrieve(input.id)).payment_intent) ?? "";
    }
    if (!intentId.startsWith("pi_")) throw invalidInput(`${input.id} is not a charge of a payment intent: give a balance transaction (txn_…), a charge (ch_…) or a payment intent (pi_…) of a purchase`);
    intent = await stripe.paymentIntents.retrieve(intentId);
  } catch (err) {
    if (isStripeError(err, "StripeInvalidRequestError") && err.statusCode === 404) throw notFound(`Stripe has no ${input.id}`);
    throw stripeFailure(err, `reading ${input.id}`, config);
  }
  const meta = intent.metadata ?? {};
  const paymentId = meta[METADATA.paymentId];
  const accountId = meta[METADATA.accountId];
  if (!paymentId || !accountId) throw invalidInput(`Payment intent ${intent.id} carries no Tollgate metadata: it is not a purchase of credits`);
  if (intent.status !== "succeeded") throw invalidInput(`Payment intent ${intent.id} is ${intent.status}: only a succeeded payment is granted`);
  const existing = rows<{ status: string; ledger_entry_id: string | null; credits: string }>(
    await db.execute(sql`SELECT status, ledger_entry_id, credits::text AS credits FROM payments WHERE id = ${paymentId}`),
  )[0];
  // What a recorded payment grants is its own credits; an unrecorded one's, its metadata's at this server's price (the webhook's check, said before anything is written).
  const credits = existing ? creditsToSql(existing.credits) : (meta[METADATA.credits] ?? "");
  const result = { payment_id: paymentId, account_id: accountId, credits, amount_minor: intent.amount_received, currency: intent.currency, stripe_payment_intent_id: intent.id };
  if (existing?.status === "succeeded") return { ...result, outcome: "already_granted", ledger_entry_id: existing.ledger_entry_id };
  const refused = !existing && isCreditString(credits) ? priceRefusal(config, { credits, amountMinor: intent.amount_received, currency: intent.currency }) : undefined;
  if (refused) throw invalidInput(`Payment intent ${intent.id} is not a purchase at this server's price (${refused.outcome}): ${refused.detail}. Nothing was granted`);
  if (!input.confirm) return { ...result, outcome: "would_grant", ledger_entry_id: null };
  // Stripe's own intent, read with the server's key: of its account; its mode is the key's.
  const event = { id: `evt_reconcile_${intent.id}`, object: "event", type: "payment_intent.succeeded", livemode: intent.livemode, data: { object: intent } };
  const applied = await applyStripeEvent(db, event, config, input.actor);
  const after = rows<{ status: string; ledger_entry_id: string | null }>(await db.execute(sql`SELECT status, ledger_entry_id FROM payments WHERE id = ${paymentId}`))[0];
  return { ...result, outcome: applied.duplicate ? `already_applied (${applied.outcome})` : applied.outcome, ledger_entry_id: after?.ledger_entry_id ?? null };
}

import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { creditKinds, ledgerKindAmount } from "./ledger-kinds";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import type { LedgerEntryType } from "../db/schema";
import type { CreditKind } from "../billing/grant-credits";
import { invalidInput, notFound } from "../errors";
import { credits, creditsToSql } from "../money";
import { sealAuditHours } from "./seal";
import { SEAL_MARGIN, resolveTimeZone } from "./time-window";
import { canonicalJson } from "./canonical-json";

/**
 * Monthly credit statements (docs/audit.md, "Monthly statements"): what an account held at the
 * start of a month, what came in, what was consumed on what, refunded and expired, and what it
 * held at the end, all read from the ledger, with the check
 * opening + grants − consumption + refunds − expiries = closing.
 * Amounts are exact decimal strings here and in the stored body; JSON numbers only in responses.
 */


export interface KindAmounts {
  paid: string;
  bonus: string;
  reward: string;
  /** Opening and closing: the balance chain's total (balance_after); sections: the lines' sum. */
  total: string;
}

export interface StatementLine {
  entry_type: LedgerEntryType;
  /** Grants and expiries feed or drain one kind; a consumption or refund line may span several. */
  kind: CreditKind | null;
  provider_id: string | null;
  provider_name: string | null;
  tool_id: string | null;
  tool_name: string | null;
  entry_count: number;
  /** What the line moved, positive, in its section's direction. */
  amount_credits: string;
}

export interface StatementSection {
  lines: StatementLine[];
  total: KindAmounts;
}

export const chainProblems = ["balance_before_mismatch", "balance_after_mismatch", "kind_split_mismatch"] as const;
export type ChainProblem = (typeof chainProblems)[number];

/** A month's ledger row that breaks the chain (or its kinds): the rows the reconciliation's difference comes from. */
export interface StatementProblem {
  ledger_entry_id: string;
  seq: number;
  created_at: string;
  entry_type: string;
  problem: ChainProblem;
  amount_credits: string;
  balance_before: string;
  balance_after: string;
  /** What the chain says the row should hold: the previous row's balance_after, balance_before + amount, or the amount. */
  expected_credits: string;
  /** What the row adds to the reconciliation's difference (kind_split_mismatch: to the kinds' sum only). */
  difference_credits: string;
}

export interface Reconciliation {
  opening_credits: string;
  grants_credits: string;
  consumption_credits: string;
  refunds_credits: string;
  expiries_credits: string;
  /** opening + grants − consumption + refunds − expiries */
  expected_closing_credits: string;
  closing_credits: string;
  /** closing − expected_closing: the sum of the problem rows' differences. */
  difference_credits: string;
  reconciled: boolean;
  problems: StatementProblem[];
  /** How many of the month's rows have a problem (`problems` lists those of the first 100). */
  problem_rows: number;
}

/** A purchase through Stripe whose grant is one of the month's ledger rows. */
export interface StatementPayment {
  payment_id: string;
  stripe_payment_intent_id: string | null;
  amount_minor: number;
  currency: string;
  credits: string;
  ledger_entry_id: string;
  succeeded_at: string | null;
}

/** A refund or lost dispute recorded in the month, or whose credits the month's rows took (a debt settled later). */
export interface StatementPaymentReversal {
  reversal_id: string;
  kind: string;
  /** Stripe's refund (`re_…`) or dispute (`dp_…`) id. */
  stripe_id: string;
  payment_id: string;
  amount_minor: number;
  currency: string;
  /** What the reversal takes back in all. */
  credits: string;
  /** What the month's `consume_payment_refund` rows took of it. */
  credits_taken: string;
  ledger_entry_ids: string[];
  created_at: string;
}

export interface StatementBody {
  account_id: string;
  account_name: string;
  month: string;
  time_zone: string;
  /** The month's bounds in UTC, half-open [start, end). */
  period_start: string;
  period_end: string;
  /** The month's ledger rows are those with first_seq <= seq <= last_seq (none: both null). */
  first_seq: number | null;
  last_seq: number | null;
  entry_count: number;
  opening: KindAmounts;
  grants: StatementSection;
  consumption: StatementSection;
  refunds: StatementSection;
  expiries: StatementSection;
  closing: KindAmounts;
  reconciliation: Reconciliation;
  /**
   * The month's payments and reversals by id (docs/billing.md, Reconciliation). Absent from the
   * stored bodies of months made final before they were listed: a final statement keeps its body.
   */
  payments?: StatementPayment[];
  payment_reversals?: StatementPaymentReversal[];
}

export interface CreditStatement {
  statement: StatementBody;
  /** Stored and immutable: the month has ended in its time zone and all its hours are sealed. */
  final: boolean;
  /** SHA-256 (hex) of the stored body's canonical JSON; null while the month is open. */
  content_hash: string | null;
  finalized_at: string | null;
}

export interface StatementMonth {
  month: string;
  period_start: string;
  period_end: string;
  status: "open" | "final";
  content_hash: string | null;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;
const PROBLEMS_LISTED = 100;

function parseMonth(raw: string): string {
  const m = MONTH.exec(raw);
  if (!m || +m[1] < 1970 || +m[1] > 9999) throw invalidInput(`Invalid month: "${raw.slice(0, 32)}". Use YYYY-MM, e.g. 2026-10`);
  return raw;
}

/** A time zone as PostgreSQL and the stored key spell it: Intl's canonical name (`europe/paris` → `Europe/Paris`). */
function statementZone(raw: string | undefined): string {
  const tz = resolveTimeZone(raw);
  return tz === "UTC" ? tz : new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
}

function isInvalidZone(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === "22023" || e.cause?.code === "22023";
}

async function zoned<T>(tz: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isInvalidZone(err)) throw invalidInput(`Invalid tz: "${tz}". Use an IANA time zone name such as Europe/Paris (default UTC)`);
    throw err;
  }
}

export function statementHash(body: StatementBody): string {
  return createHash("sha256").update(canonicalJson(body)).digest("hex");
}

interface AccountMonths {
  account_name: string | null;
  first_month: string | null;
  current_month: string;
  sealed_until: Date | string | null;
  sealable: Date | string;
}

/** The account's first ledger month and the current month in tz, and its seal state. */
async function accountMonths(db: Db, accountId: string, tz: string): Promise<AccountMonths> {
  return zoned(tz, async () =>
    rows<AccountMonths>(
      await db.execute(sql`
        SELECT (SELECT name FROM accounts WHERE id = ${accountId}) AS account_name,
               (SELECT to_char(min(created_at) AT TIME ZONE ${tz}, 'YYYY-MM') FROM credits_ledger WHERE account_id = ${accountId}) AS first_month,
               to_char(now() AT TIME ZONE ${tz}, 'YYYY-MM') AS current_month,
               (SELECT sealed_until FROM audit_seal_state WHERE account_id = ${accountId}) AS sealed_until,
               date_trunc('hour', now() - interval '${sql.raw(SEAL_MARGIN)}', 'UTC') AS sealable`),
    )[0],
  );
}

interface MonthBounds {
  month: string;
  period_start: string;
  period_end: string;
}

/** [first, last] months with their UTC bounds in tz, newest first. */
async function monthBounds(db: Db, tz: string, first: string, last: string): Promise<MonthBounds[]> {
  return rows<MonthBounds>(
    await db.execute(sql`
      SELECT to_char(m, 'YYYY-MM') AS month,
             to_char((m AT TIME ZONE ${tz}) AT TIME ZONE 'UTC', ${sql.raw(ISO)}) AS period_start,
             to_char(((m + interval '1 month') AT TIME ZONE ${tz}) AT TIME ZONE 'UTC', ${sql.raw(ISO)}) AS period_end
        FROM generate_series(${`${first}-01`}::timestamp, ${`${last}-01`}::timestamp, interval '1 month') m
       ORDER BY m DESC`),
  );
}

/**
 * Seals the account's hours when that can make a month final (its end has passed the seal margin
 * but not the seal yet); returns the seal boundary.
 */
async function sealedThrough(db: Db, accountId: string, st: AccountMonths, periodEnd: string): Promise<Date | null> {
  const end = new Date(periodEnd).getTime();
  const sealed = st.sealed_until === null ? null : new Date(st.sealed_until);
  if (sealed && sealed.getTime() >= end) return sealed;
  if (end > new Date(st.sealable).getTime()) return sealed;
  const now = await sealAuditHours(db, accountId);
  if (now) st.sealed_until = now;
  return now ?? sealed;
}

interface StoredRow {
  month: string;
  body: StatementBody;
  content_hash: string;
  created_at: Date | string;
}

function stored(row: StoredRow): CreditStatement {
  return { statement: row.body, final: true, content_hash: row.content_hash, finalized_at: new Date(row.created_at).toISOString() };
}

/** Stores a final statement once; a concurrent first reader's row wins and is what both return. */
async function store(db: Db, body: StatementBody): Promise<CreditStatement> {
  const hash = statementHash(body);
  await db.execute(sql`
    INSERT INTO credit_statements (account_id, month, time_zone, body, content_hash)
    VALUES (${body.account_id}, ${body.month}, ${body.time_zone}, ${JSON.stringify(body)}::jsonb, ${hash})
    ON CONFLICT (account_id, month, time_zone) DO NOTHING`);
  const row = await readStored(db, body.account_id, body.month, body.time_zone);
  return stored(row!);
}

async function readStored(db: Db, accountId: string, month: string, tz: string): Promise<StoredRow | undefined> {
  return rows<StoredRow>(
    await db.execute(sql`
      SELECT month, body, content_hash, created_at FROM credit_statements
       WHERE account_id = ${accountId} AND month = ${month} AND time_zone = ${tz}`),
  )[0];
}

/** `GET /auth/credits/statements/{month}`: the stored statement of a final month, else computed now. */
export async function getCreditStatement(db: Db, accountId: string, input: { month: string; tz?: string }): Promise<CreditStatement> {
  const month = parseMonth(input.month);
  const tz = statementZone(input.tz);
  const kept = await readStored(db, accountId, month, tz);
  if (kept) return stored(kept);
  const st = await accountMonths(db, accountId, tz);
  if (month > st.current_month) throw notFound(`No statement for ${month}: the month has not started in ${tz}`);
  if (st.first_month === null || month < st.first_month) throw notFound(`No statement for ${month}: the account's ledger starts ${st.first_month === null ? "later" : `in ${st.first_month}`} (${tz})`);
  const [bounds] = await monthBounds(db, tz, month, month);
  const sealed = await sealedThrough(db, accountId, st, bounds.period_end);
  const body = await computeStatement(db, accountId, st.account_name ?? "", tz, bounds);
  if (sealed && sealed.getTime() >= new Date(bounds.period_end).getTime()) return store(db, body);
  return { statement: body, final: false, content_hash: null, finalized_at: null };
}

/**
 * `GET /auth/credits/statements`: the months from the account's first ledger month to the current
 * one in tz, newest first. Months that have become final are stored on the way, so each lists its hash.
 */
export async function listCreditStatements(db: Db, accountId: string, input: { tz?: string }): Promise<{ time_zone: string; items: StatementMonth[] }> {
  const tz = statementZone(input.tz);
  const st = await accountMonths(db, accountId, tz);
  if (st.first_month === null) return { time_zone: tz, items: [] };
  const months = await monthBounds(db, tz, st.first_month, st.current_month);
  const kept = new Map(
    rows<{ month: string; content_hash: string }>(
      await db.execute(sql`SELECT month, content_hash FROM credit_statements WHERE account_id = ${accountId} AND time_zone = ${tz}`),
    ).map((r) => [r.month, r.content_hash]),
  );
  const items: StatementMonth[] = [];
  // Oldest first, so one seal covers them all; listed newest first.
  for (const m of [...months].reverse()) {
    let hash = kept.get(m.month) ?? null;
    if (hash === null) {
      const sealed = await sealedThrough(db, accountId, st, m.period_end);
      if (sealed && sealed.getTime() >= new Date(m.period_end).getTime()) {
        hash = (await store(db, await computeStatement(db, accountId, st.account_name ?? "", tz, m))).content_hash;
      }
    }
    items.push({ ...m, status: hash === null ? "open" : "final", content_hash: hash });
  }
  return { time_zone: tz, items: items.reverse() };
}

/** The amount of a ledger row (alias `l`) that belongs to one kind. */
const kindAmount = (k: CreditKind): SQL => ledgerKindAmount(k, "l");

const TOOL_ROWS = sql`l.entry_type IN ('consume_tool_execute', 'refund_tool_execute')`;

interface Computed {
  open_seq: string;
  close_seq: string;
  first_seq: string | null;
  opening_total: string;
  closing_total: string;
  opening_paid: string;
  opening_bonus: string;
  opening_reward: string;
  closing_paid: string;
  closing_bonus: string;
  closing_reward: string;
  lines: {
    entry_type: LedgerEntryType;
    provider_id: string | null;
    provider_name: string | null;
    tool_id: string | null;
    tool_name: string | null;
    n: number;
    amount: string;
    paid: string;
    bonus: string;
    reward: string;
  }[] | null;
  problems:
    | { id: string; seq: number; created_at: string; entry_type: string; amount: string; balance_before: string; balance_after: string; prev_after: string; kinds: string }[]
    | null;
  problem_rows: number;
}

/**
 * One statement (one snapshot). The month is the ledger between two cuts of the balance chain: the
 * cut at a boundary follows the highest `seq` written before it, so each row falls in exactly one
 * month and opening/closing are the chain's `balance_after` at the cuts. (A row's `created_at` is
 * its transaction's start: a row committed across midnight can carry a later `seq` than one
 * stamped after it. Rows an hour or more before the boundary are not searched for that.)
 */
async function computeStatement(db: Db, accountId: string, accountName: string, tz: string, bounds: MonthBounds): Promise<StatementBody> {
  const cut = (at: string) => sql`coalesce(
    (SELECT max(seq) FROM credits_ledger WHERE account_id = ${accountId} AND created_at < ${at}::timestamptz AND created_at >= ${at}::timestamptz - interval '1 hour'),
    (SELECT seq FROM credits_ledger WHERE account_id = ${accountId} AND created_at < ${at}::timestamptz ORDER BY created_at DESC, seq DESC LIMIT 1), 0)`;
  const [paid, bonus, reward] = creditKinds.map(kindAmount);
  const r = rows<Computed>(
    await db.execute(sql`
      WITH cut AS (SELECT o.s AS open_seq, greatest(o.s, ${cut(bounds.period_end)}) AS close_seq FROM (SELECT ${cut(bounds.period_start)} AS s) o),
      kinds AS (
        SELECT coalesce(sum(${paid}) FILTER (WHERE l.seq <= c.open_seq), 0) AS opening_paid,
               coalesce(sum(${bonus}) FILTER (WHERE l.seq <= c.open_seq), 0) AS opening_bonus,
               coalesce(sum(${reward}) FILTER (WHERE l.seq <= c.open_seq), 0) AS opening_reward,
               coalesce(sum(${paid}), 0) AS closing_paid, coalesce(sum(${bonus}), 0) AS closing_bonus, coalesce(sum(${reward}), 0) AS closing_reward
          FROM credits_ledger l, cut c WHERE l.account_id = ${accountId} AND l.seq <= c.close_seq),
      lines AS (
        SELECT l.entry_type,
               CASE WHEN ${TOOL_ROWS} THEN coalesce(x.provider_id, t.provider_id, l.ledger_metadata->>'provider_id') END AS provider_id,
               CASE WHEN ${TOOL_ROWS} THEN coalesce(x.tool_id, l.ledger_metadata->>'tool_id') END AS tool_id,
               count(*)::int AS n, sum(l.amount_credits) AS amount, sum(${paid}) AS paid, sum(${bonus}) AS bonus, sum(${reward}) AS reward
          FROM cut c, credits_ledger l
          LEFT JOIN executions x ON x.id = l.execution_id AND x.account_id = l.account_id
          LEFT JOIN tools t ON t.id = coalesce(x.tool_id, l.ledger_metadata->>'tool_id')
         WHERE l.account_id = ${accountId} AND l.seq > c.open_seq AND l.seq <= c.close_seq
         GROUP BY 1, 2, 3),
      chain AS (
        SELECT l.id, l.seq, l.created_at, l.entry_type, l.amount_credits, l.balance_before, l.balance_after,
               coalesce(lag(l.balance_after) OVER (ORDER BY l.seq), 0) AS prev_after, ${paid} + ${bonus} + ${reward} AS kinds
          FROM credits_ledger l, cut c WHERE l.account_id = ${accountId} AND l.seq >= c.open_seq AND l.seq <= c.close_seq),
      problems AS (
        SELECT ch.* FROM chain ch, cut c
         WHERE ch.seq > c.open_seq
           AND (ch.balance_before <> ch.prev_after OR ch.balance_after <> ch.balance_before + ch.amount_credits OR ch.kinds <> ch.amount_credits))
      SELECT c.open_seq::text, c.close_seq::text,
             (SELECT min(seq) FROM credits_ledger WHERE account_id = ${accountId} AND seq > c.open_seq AND seq <= c.close_seq)::text AS first_seq,
             coalesce((SELECT balance_after FROM credits_ledger WHERE account_id = ${accountId} AND seq = c.open_seq), 0)::text AS opening_total,
             coalesce((SELECT balance_after FROM credits_ledger WHERE account_id = ${accountId} AND seq = c.close_seq), 0)::text AS closing_total,
             k.opening_paid::text, k.opening_bonus::text, k.opening_reward::text, k.closing_paid::text, k.closing_bonus::text, k.closing_reward::text,
             (SELECT json_agg(json_build_object('entry_type', li.entry_type, 'provider_id', li.provider_id, 'provider_name', p.name,
                                                'tool_id', li.tool_id, 'tool_name', t.name, 'n', li.n, 'amount', li.amount::text,
                                                'paid', li.paid::text, 'bonus', li.bonus::text, 'reward', li.reward::text))
                FROM lines li LEFT JOIN providers p ON p.id = li.provider_id LEFT JOIN tools t ON t.id = li.tool_id) AS lines,
             (SELECT json_agg(json_build_object('id', pr.id, 'seq', pr.seq, 'created_at', to_char(pr.created_at AT TIME ZONE 'UTC', ${sql.raw(ISO)}),
                                                'entry_type', pr.entry_type, 'amount', pr.amount_credits::text, 'balance_before', pr.balance_before::text,
                                                'balance_after', pr.balance_after::text, 'prev_after', pr.prev_after::text, 'kinds', pr.kinds::text) ORDER BY pr.seq)
                FROM (SELECT * FROM problems ORDER BY seq LIMIT ${PROBLEMS_LISTED}) pr) AS problems,
             (SELECT count(*)::int FROM problems) AS problem_rows
        FROM cut c, kinds k`),
  )[0];
  return { ...assemble(r, { accountId, accountName, tz, bounds }), ...(await paymentsOf(db, accountId, r, bounds)) };
}

/** The month's grants of Stripe payments and the reversals recorded in it or taken by its rows, by id, in ledger order. */
async function paymentsOf(db: Db, accountId: string, r: Computed, bounds: MonthBounds): Promise<Pick<StatementBody, "payments" | "payment_reversals">> {
  const inMonth = sql`l.account_id = ${accountId} AND l.seq > ${r.open_seq}::bigint AND l.seq <= ${r.close_seq}::bigint AND l.source_system = 'stripe'`;
  const payments = rows<{ id: string; pi: string | null; amount_minor: string | number; currency: string; credits: string; ledger_entry_id: string; succeeded_at: string | null }>(
    await db.execute(sql`
      SELECT p.id, p.stripe_payment_intent_id AS pi, p.amount_minor, p.currency, p.credits::text AS credits, l.id AS ledger_entry_id,
             to_char(p.succeeded_at AT TIME ZONE 'UTC', ${sql.raw(ISO)}) AS succeeded_at
        FROM credits_ledger l JOIN payments p ON p.id = l.source_ref_id AND p.account_id = l.account_id
       WHERE ${inMonth} AND l.entry_type = 'grant_payment_recharge'
       ORDER BY l.seq`),
  );
  const reversals = rows<{ id: string; kind: string; stripe_id: string; payment_id: string; amount_minor: string | number; currency: string; credits: string; taken: string; ledger_ids: string[] | null; created_at: string }>(
    await db.execute(sql`
      WITH taken AS (
        SELECT l.source_ref_id AS reversal_id, sum(-l.amount_credits) AS taken, array_agg(l.id ORDER BY l.seq) AS ledger_ids, min(l.seq) AS first_seq
          FROM credits_ledger l
         WHERE ${inMonth} AND l.entry_type = 'consume_payment_refund' AND l.source_ref_type = 'payment_reversal'
         GROUP BY l.source_ref_id)
      SELECT v.id, v.kind, v.stripe_id, v.payment_id, v.amount_minor, v.currency, v.credits::text AS credits, coalesce(t.taken, 0)::text AS taken, t.ledger_ids,
             to_char(v.created_at AT TIME ZONE 'UTC', ${sql.raw(ISO)}) AS created_at
        FROM payment_reversals v LEFT JOIN taken t ON t.reversal_id = v.id
       WHERE v.account_id = ${accountId}
         AND (t.reversal_id IS NOT NULL OR (v.created_at >= ${bounds.period_start}::timestamptz AND v.created_at < ${bounds.period_end}::timestamptz))
       ORDER BY v.created_at, v.id`),
  );
  return {
    payments: payments.map((p) => ({
      payment_id: p.id,
      stripe_payment_intent_id: p.pi,
      amount_minor: Number(p.amount_minor),
      currency: p.currency,
      credits: out(dec(p.credits)),
      ledger_entry_id: p.ledger_entry_id,
      succeeded_at: p.succeeded_at,
    })),
    payment_reversals: reversals.map((v) => ({
      reversal_id: v.id,
      kind: v.kind,
      stripe_id: v.stripe_id,
      payment_id: v.payment_id,
      amount_minor: Number(v.amount_minor),
      currency: v.currency,
      credits: out(dec(v.credits)),
      credits_taken: out(dec(v.taken)),
      ledger_entry_ids: v.ledger_ids ?? [],
      created_at: v.created_at,
    })),
  };
}

const dec = (v: string | null | undefined) => credits(v ?? "0");
const out = (v: ReturnType<typeof credits>) => creditsToSql(v);

const grantKindOf: Partial<Record<LedgerEntryType, CreditKind>> = {
  grant_payment_recharge: "paid",
  grant_welcome_bonus: "bonus",
  grant_invitation_reward: "reward",
  expire_payment_recharge: "paid",
  expire_welcome_bonus: "bonus",
  expire_invitation_reward: "reward",
};

type Section = "grants" | "consumption" | "refunds" | "expiries";

function sectionOf(type: LedgerEntryType): Section {
  if (type.startsWith("grant_")) return "grants";
  if (type.startsWith("consume_")) return "consumption";
  if (type.startsWith("refund_")) return "refunds";
  return "expiries";
}

/** Sections that take credits out are shown positive and subtracted in the reconciliation. */
const outgoing = (s: Section) => s === "consumption" || s === "expiries";

function assemble(r: Computed, ctx: { accountId: string; accountName: string; tz: string; bounds: MonthBounds }): StatementBody {
  const sections: Record<Section, { lines: StatementLine[]; kinds: Record<CreditKind, ReturnType<typeof credits>> }> = {
    grants: { lines: [], kinds: { paid: dec("0"), bonus: dec("0"), reward: dec("0") } },
    consumption: { lines: [], kinds: { paid: dec("0"), bonus: dec("0"), reward: dec("0") } },
    refunds: { lines: [], kinds: { paid: dec("0"), bonus: dec("0"), reward: dec("0") } },
    expiries: { lines: [], kinds: { paid: dec("0"), bonus: dec("0"), reward: dec("0") } },
  };
  let entries = 0;
  let flow = dec("0");
  for (const li of r.lines ?? []) {
    const s = sectionOf(li.entry_type);
    const sign = outgoing(s) ? -1 : 1;
    entries += li.n;
    flow = flow.plus(dec(li.amount));
    for (const k of creditKinds) sections[s].kinds[k] = sections[s].kinds[k].plus(dec(li[k]).times(sign));
    sections[s].lines.push({
      entry_type: li.entry_type,
      kind: grantKindOf[li.entry_type] ?? null,
      provider_id: li.provider_id,
      provider_name: li.provider_name,
      tool_id: li.tool_id,
      tool_name: li.tool_name,
      entry_count: li.n,
      amount_credits: out(dec(li.amount).times(sign)),
    });
  }
  const section = (s: Section): StatementSection => {
    const lines = sections[s].lines.sort(
      (a, b) => dec(b.amount_credits).comparedTo(dec(a.amount_credits)) || a.entry_type.localeCompare(b.entry_type) || (a.tool_id ?? "").localeCompare(b.tool_id ?? ""),
    );
    const total = lines.reduce((sum, l) => sum.plus(dec(l.amount_credits)), dec("0"));
    const k = sections[s].kinds;
    return { lines, total: { paid: out(k.paid), bonus: out(k.bonus), reward: out(k.reward), total: out(total) } };
  };
  const grants = section("grants");
  const consumption = section("consumption");
  const refunds = section("refunds");
  const expiries = section("expiries");
  const opening = dec(r.opening_total);
  const closing = dec(r.closing_total);
  const expected = opening.plus(flow);
  const difference = closing.minus(expected);
  const problems: StatementProblem[] = [];
  for (const p of r.problems ?? []) {
    const before = dec(p.balance_before);
    const after = dec(p.balance_after);
    const amount = dec(p.amount);
    const base = { ledger_entry_id: p.id, seq: Number(p.seq), created_at: p.created_at, entry_type: p.entry_type, amount_credits: out(amount), balance_before: out(before), balance_after: out(after) };
    if (!before.eq(dec(p.prev_after))) problems.push({ ...base, problem: "balance_before_mismatch", expected_credits: out(dec(p.prev_after)), difference_credits: out(before.minus(dec(p.prev_after))) });
    if (!after.eq(before.plus(amount))) problems.push({ ...base, problem: "balance_after_mismatch", expected_credits: out(before.plus(amount)), difference_credits: out(after.minus(before.plus(amount))) });
    if (!dec(p.kinds).eq(amount)) problems.push({ ...base, problem: "kind_split_mismatch", expected_credits: out(amount), difference_credits: out(amount.minus(dec(p.kinds))) });
  }
  return {
    account_id: ctx.accountId,
    account_name: ctx.accountName,
    month: ctx.bounds.month,
    time_zone: ctx.tz,
    period_start: ctx.bounds.period_start,
    period_end: ctx.bounds.period_end,
    first_seq: r.first_seq === null ? null : Number(r.first_seq),
    last_seq: r.first_seq === null ? null : Number(r.close_seq),
    entry_count: entries,
    opening: { paid: out(dec(r.opening_paid)), bonus: out(dec(r.opening_bonus)), reward: out(dec(r.opening_reward)), total: out(opening) },
    grants,
    consumption,
    refunds,
    expiries,
    closing: { paid: out(dec(r.closing_paid)), bonus: out(dec(r.closing_bonus)), reward: out(dec(r.closing_reward)), total: out(closing) },
    reconciliation: {
      opening_credits: out(opening),
      grants_credits: grants.total.total,
      consumption_credits: consumption.total.total,
      refunds_credits: refunds.total.total,
      expiries_credits: expiries.total.total,
      expected_closing_credits: out(expected),
      closing_credits: out(closing),
      difference_credits: out(difference),
      reconciled: difference.isZero() && problems.length === 0,
      problems,
      problem_rows: r.problem_rows,
    },
  };
}

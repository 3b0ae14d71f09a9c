import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { analytic } from "./analytic";
import { notFound } from "../errors";
import { creditsToNumber } from "../money";
import { type BoundedWindow, bucketPlan, isBounded, rawRows, sealedHours, sealedPlan } from "./buckets";
import type { LedgerItem, LedgerSummary } from "./schemas";
import { ensureSealed } from "./seal";
import { type Bucket, type TimeWindow, type WindowRequest, chooseBucket, inWindow, rawRemainder, resolveWindow, sealedSpan } from "./time-window";
import { type LedgerFilters, ledgerConditions, ledgerMeasures, ledgerRollupConditions } from "./ledger-filters";
import { and } from "./usage-filters";
import { SAMPLE_CAP, SUMMARY_DEFAULT_SAMPLE } from "./usage-history";
import { toIso } from "./usage-items";

/** Newest first; matches ledger_account_created_idx (account_id, created_at DESC, seq DESC). */
export const LEDGER_NEWEST_FIRST = sql.raw("ORDER BY l.created_at DESC NULLS LAST, l.seq DESC NULLS LAST");

/**
 * The tool a Call's row charged or refunded: its execution's tool and that tool's catalog name. Two
 * primary-key reads per row selected; a paged read selects the page first (an OFFSET's skipped rows
 * would evaluate them too).
 */
const LEDGER_TOOL_COLUMNS = `(SELECT x.tool_id FROM executions x WHERE x.id = l.execution_id) AS tool_id,
  (SELECT t.name FROM executions x JOIN tools t ON t.id = x.tool_id WHERE x.id = l.execution_id) AS tool_name`;

export const LEDGER_COLUMNS = sql.raw(`l.id, l.seq, l.entry_type, l.amount_credits::text AS amount_credits, l.source_system, l.source_ref_type,
  l.source_ref_id, l.execution_id, l.usage_event_id, l.pre_settlement_bill, l.settlement_result,
  l.balance_before::text AS balance_before, l.balance_after::text AS balance_after, l.ledger_metadata, l.description, l.created_at,
  ${LEDGER_TOOL_COLUMNS}`);

export interface LedgerRecord {
  id: string;
  seq: number;
  entry_type: LedgerItem["entry_type"];
  amount_credits: string;
  source_system: string;
  source_ref_type: string | null;
  source_ref_id: string | null;
  execution_id: string | null;
  usage_event_id: string | null;
  pre_settlement_bill: unknown;
  settlement_result: unknown;
  balance_before: string;
  balance_after: string;
  ledger_metadata: unknown;
  description: string;
  created_at: Date | string;
  tool_id: string | null;
  tool_name: string | null;
}

export function ledgerItem(r: LedgerRecord): LedgerItem {
  return {
    id: r.id,
    entry_type: r.entry_type,
    amount_credits: creditsToNumber(r.amount_credits),
    source_system: r.source_system,
    source_ref_type: r.source_ref_type,
    source_ref_id: r.source_ref_id,
    execution_id: r.execution_id,
    usage_event_id: r.usage_event_id,
    pre_settlement_bill: r.pre_settlement_bill,
    settlement_result: r.settlement_result,
    balance_before: { total_available_credits: creditsToNumber(r.balance_before) },
    balance_after: { total_available_credits: creditsToNumber(r.balance_after) },
    ledger_metadata: r.ledger_metadata,
    description: r.description,
    created_at: toIso(r.created_at),
    tool_id: r.tool_id ?? null,
    tool_name: r.tool_name ?? null,
  };
}

export interface LedgerListInput extends WindowRequest {
  filters: LedgerFilters;
  page: number;
  pageSize: number;
  limit?: number;
  summary: boolean;
  bucket?: Bucket;
}

/** `GET /auth/credits/ledger`: one page newest first, the matching total and, on request, the summary. */
export async function listLedgerEntries(db: Db, accountId: string, input: LedgerListInput) {
  const pageSize = input.limit !== undefined ? Math.min(input.limit, SAMPLE_CAP) : input.pageSize;
  const w = await resolveWindow(db, accountId, input);
  const sw = input.summary ? (w.start && w.end ? w : await resolveWindow(db, accountId, { ...input, defaultLast24h: true })) : null;
  if (ledgerRollupConditions(input.filters)) {
    await ensureSealed(db, accountId, w);
    if (sw) sw.sealedUntil = w.sealedUntil;
  }
  const [itemRows, total, summary] = await Promise.all([
    // The page first, then its columns: the tool lookups run for the page's rows, not for every row OFFSET skips.
    db.execute(sql`
      SELECT ${LEDGER_COLUMNS} FROM (
        SELECT * FROM credits_ledger l
         WHERE l.account_id = ${accountId} AND ${inWindow(sql.raw("l.created_at"), w.start, w.end)} AND ${and(ledgerConditions(input.filters))}
         ${LEDGER_NEWEST_FIRST} LIMIT ${pageSize} OFFSET ${(input.page - 1) * pageSize}) l
       ${LEDGER_NEWEST_FIRST}`),
    countLedgerEntries(db, accountId, w, input.filters),
    sw && isBounded(sw)
      ? ledgerSummary(db, accountId, sw, input.filters, { bucket: input.bucket, limit: Math.min(input.limit ?? SUMMARY_DEFAULT_SAMPLE, SAMPLE_CAP) })
      : Promise.resolve(null),
  ]);
  return { items: rows<LedgerRecord>(itemRows).map(ledgerItem), total, page: input.page, page_size: pageSize, summary };
}

export async function countLedgerEntries(db: Db, accountId: string, w: TimeWindow, f: LedgerFilters): Promise<number> {
  const rollup = ledgerRollupConditions(f);
  const span = rollup ? sealedSpan(w) : null;
  const fromRollup = span
    ? sql`(SELECT coalesce(sum(n_consume + n_grant + n_other), 0) FROM (
             SELECT ${ledgerMeasures(f.direction, "rollup")} FROM ledger_hourly_rollup r
              WHERE r.account_id = ${accountId} AND ${inWindow(sql.raw("r.hour_start"), span.lo, span.hi)} AND ${and(rollup!)}) m)`
    : sql`0`;
  const query = sql`
    SELECT (${fromRollup} + (SELECT count(*) FROM credits_ledger l
                              WHERE l.account_id = ${accountId} AND ${rawRemainder(sql.raw("l.created_at"), w, span)}
                                AND ${and(ledgerConditions(f))}))::float8 AS n`;
  const result = span ? rows<{ n: number }>(await db.execute(query)) : await analytic<{ n: number }>(db, query);
  return result[0].n;
}

/** `GET /auth/credits/ledger/{entry_id}`. */
export async function getLedgerEntry(db: Db, accountId: string, entryId: string): Promise<LedgerItem> {
  const result = await db.execute(sql`SELECT ${LEDGER_COLUMNS} FROM credits_ledger l WHERE l.id = ${entryId} AND l.account_id = ${accountId}`);
  const row = rows<LedgerRecord>(result)[0];
  if (!row) throw notFound(`Ledger entry ${entryId} not found`);
  return ledgerItem(row);
}

interface LedgerBucketRow {
  is_total: boolean;
  bucket_start: string | null;
  bucket_start_local: string | null;
  n_consume: number;
  n_grant: number;
  n_other: number;
  consumed: string;
  granted: string;
  net: string;
}

/** The ledger summary of contract 2.7, aggregated in SQL (sealed hours from the rollup, the rest raw, as for usage). */
export async function ledgerSummary(
  db: Db,
  accountId: string,
  w: BoundedWindow,
  f: LedgerFilters,
  opts: { bucket?: Bucket; limit: number },
): Promise<LedgerSummary> {
  const bucket = chooseBucket(opts.bucket, { start: w.startDate, end: w.endDate });
  const plan = bucketPlan(w, bucket);
  const rollup = ledgerRollupConditions(f);
  const sealed = rollup ? await sealedPlan(db, accountId, w, bucket) : null;
  const rollupPart: SQL = sealed
    ? sql`SELECT ${plan.key(sql.raw("r.hour_start"))} AS b, ${ledgerMeasures(f.direction, "rollup")}
            FROM ledger_hourly_rollup r
           WHERE r.account_id = ${accountId} AND ${sealedHours(sealed)} AND ${and(rollup!)}
          UNION ALL`
    : sql``;
  const result = await analytic<LedgerBucketRow>(
    db,
    sql`
    WITH parts AS (
      ${rollupPart}
      SELECT ${plan.key(sql.raw("l.created_at"))} AS b, ${ledgerMeasures(f.direction, "ledger")}
        FROM credits_ledger l
       WHERE l.account_id = ${accountId} AND ${rawRows(sql.raw("l.created_at"), w, sealed)} AND ${and(ledgerConditions(f))}
    ), agg AS (
      SELECT b, grouping(b) = 1 AS is_total, sum(n_consume) AS n_consume, sum(n_grant) AS n_grant, sum(n_other) AS n_other,
             sum(consumed) AS consumed, sum(granted) AS granted
        FROM parts GROUP BY GROUPING SETS ((b), ())
    )
    SELECT false AS is_total, ${plan.labels}, coalesce(a.n_consume, 0)::float8 AS n_consume, coalesce(a.n_grant, 0)::float8 AS n_grant,
           coalesce(a.n_other, 0)::float8 AS n_other, coalesce(a.consumed, 0)::text AS consumed, coalesce(a.granted, 0)::text AS granted,
           (coalesce(a.granted, 0) - coalesce(a.consumed, 0))::text AS net
      FROM (${plan.series}) s LEFT JOIN agg a ON a.b = s.b AND NOT a.is_total
    UNION ALL
    SELECT true, null, null, coalesce(n_consume, 0)::float8, coalesce(n_grant, 0)::float8, coalesce(n_other, 0)::float8,
           coalesce(consumed, 0)::text, coalesce(granted, 0)::text, (coalesce(granted, 0) - coalesce(consumed, 0))::text
      FROM agg WHERE is_total
    ORDER BY 1, 2`,
  );
  const all = result;
  const t = all.find((r) => r.is_total);
  const maxItems = opts.limit > 0 ? await maxAmountItems(db, accountId, w, f, opts.limit) : [];
  return {
    start_date: w.startDate.toISOString(),
    end_date: w.endDate.toISOString(),
    tz: w.tz,
    bucket,
    total_entries: t ? t.n_consume + t.n_grant + t.n_other : 0,
    consume_count: t?.n_consume ?? 0,
    grant_count: t?.n_grant ?? 0,
    consumed_credits: creditsToNumber(t?.consumed ?? "0"),
    granted_credits: creditsToNumber(t?.granted ?? "0"),
    net_amount_credits: creditsToNumber(t?.net ?? "0"),
    max_amount_items: maxItems,
    buckets: all
      .filter((r) => !r.is_total)
      .map((r) => ({
        bucket_start: r.bucket_start!,
        bucket_start_local: r.bucket_start_local!,
        entry_count: r.n_consume + r.n_grant + r.n_other,
        consume_count: r.n_consume,
        grant_count: r.n_grant,
        consumed_credits: creditsToNumber(r.consumed),
        granted_credits: creditsToNumber(r.granted),
        net_amount_credits: creditsToNumber(r.net),
      })),
  };
}

/** The window's largest absolute amounts (served by ledger_account_abs_amount_idx). */
async function maxAmountItems(db: Db, accountId: string, w: BoundedWindow, f: LedgerFilters, limit: number) {
  const result = await db.execute(sql`
    SELECT ${LEDGER_COLUMNS} FROM credits_ledger l
     WHERE l.account_id = ${accountId} AND l.created_at >= ${w.start}::timestamptz AND l.created_at < ${w.end}::timestamptz
       AND ${and(ledgerConditions(f))}
     ORDER BY abs(l.amount_credits) DESC, l.created_at DESC NULLS LAST
     LIMIT ${limit}`);
  return rows<LedgerRecord>(result).map(ledgerItem);
}

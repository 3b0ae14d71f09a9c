import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { notFound } from "../errors";
import { creditsToNumber } from "../money";
import { analytic } from "./analytic";
import { isBounded } from "./buckets";
import { TIMESTAMP_KEY, UUID_ID, decodeCursor, encodeCursor } from "./cursor";
import type { UsageEventItem, UsageSummary } from "./schemas";
import { withAnomalyScope } from "./ready-days";
import { guidedRanges, inRanges } from "./guided-walk";
import { ensureSealed } from "./seal";
import { type Bucket, type TimeWindow, type WindowRequest, inWindow, rawRemainder, resolveWindow, sealedSpan } from "./time-window";
import { usageRollupRows } from "./usage-rollup";
import { usageSummary } from "./usage-summary";
import { type UsageFilters, and, usageConditions, usageKinds } from "./usage-filters";
import { type UsageEventRecord, toIso, usageItem, usageItemColumns } from "./usage-items";

/** Newest first; matches the (account_id, created_at DESC, id DESC) indexes exactly. */
export const USAGE_NEWEST_FIRST = sql.raw("ORDER BY e.created_at DESC NULLS LAST, e.id DESC NULLS LAST");

export interface UsageListInput extends WindowRequest {
  filters: UsageFilters;
  page: number;
  pageSize: number;
  limit?: number;
  includeDetails: boolean;
  summary: boolean;
  bucket?: Bucket;
}

export interface UsageHistory {
  items: UsageEventItem[];
  total: number;
  page: number;
  page_size: number;
  summary: UsageSummary | null;
}

export const SAMPLE_CAP = 50;
export const SUMMARY_DEFAULT_SAMPLE = 10;

/** `GET /auth/usage/history/v2`: one page (newest first), the matching total and, on request, the summary. */
export async function listUsageEvents(db: Db, accountId: string, input: UsageListInput): Promise<UsageHistory> {
  const pageSize = input.limit !== undefined ? Math.min(input.limit, SAMPLE_CAP) : input.pageSize;
  const w = await resolveWindow(db, accountId, input);
  const sw = input.summary ? (w.start && w.end ? w : await resolveWindow(db, accountId, { ...input, defaultLast24h: true })) : null;
  if (usageConditions(input.filters, "rollup")) {
    await ensureSealed(db, accountId, w);
    if (sw) sw.sealedUntil = w.sealedUntil;
  }
  const scoped = await withAnomalyScope(db, accountId, w, input.filters);
  const filters = and(usageConditions(scoped, "events")!);
  const offset = (input.page - 1) * pageSize;
  const ranges = await guidedRanges(db, accountId, w, scoped, offset + pageSize);
  // The items' columns (anomaly probes among them) are computed over the page's rows only: over a
  // LIMIT in the same SELECT the planner may hash a whole ledger table for them instead.
  const page = ranges
    ? sql`
      WITH page AS (
        SELECT x.id, x.created_at FROM (${inRanges(ranges, offset + pageSize, (range) => sql`SELECT e.id, e.created_at FROM usage_events e WHERE e.account_id = ${accountId} AND ${range} AND ${filters}`)}) x
         ORDER BY x.created_at DESC, x.id DESC LIMIT ${pageSize} OFFSET ${offset})
      SELECT ${usageItemColumns(input.includeDetails)} FROM page JOIN usage_events e ON e.id = page.id AND e.created_at = page.created_at AND e.account_id = ${accountId}
       ${USAGE_NEWEST_FIRST}`
    : sql`
      SELECT ${usageItemColumns(input.includeDetails)} FROM (
        SELECT e.* FROM usage_events e
         WHERE e.account_id = ${accountId} AND ${inWindow(sql.raw("e.created_at"), w.start, w.end)} AND ${filters}
         ${USAGE_NEWEST_FIRST} LIMIT ${pageSize} OFFSET ${offset}) e
       ${USAGE_NEWEST_FIRST}`;
  const [itemRows, total, summary] = await Promise.all([
    db.execute(page),
    countUsageEvents(db, accountId, w, scoped),
    sw && isBounded(sw)
      ? usageSummary(db, accountId, sw, scoped, { bucket: input.bucket, limit: Math.min(input.limit ?? SUMMARY_DEFAULT_SAMPLE, SAMPLE_CAP) })
      : Promise.resolve(null),
  ]);
  return {
    items: rows<UsageEventRecord>(itemRows).map((r) => usageItem(r, input.includeDetails)),
    total,
    page: input.page,
    page_size: pageSize,
    summary,
  };
}

/** The number of matching events: sealed hours from the rollup plus a count of the raw remainder. */
export async function countUsageEvents(db: Db, accountId: string, w: TimeWindow, filters: UsageFilters): Promise<number> {
  const rollup = usageConditions(filters, "rollup");
  const span = rollup ? sealedSpan(w) : null;
  const fromRollup = span ? sql`(SELECT coalesce(sum(x.event_count), 0) FROM (${usageRollupRows(accountId, span, rollup!)}) x)` : sql`0`;
  const query = sql`
    SELECT (${fromRollup} + (SELECT count(*) FROM usage_events e
                              WHERE e.account_id = ${accountId} AND ${rawRemainder(sql.raw("e.created_at"), w, span)}
                                AND ${and(usageConditions(filters, "events")!)}))::float8 AS n`;
  // Without the rollup the count may scan many rows: keep JIT out of it.
  const result = span ? rows<{ n: number }>(await db.execute(query)) : await analytic<{ n: number }>(db, query);
  return result[0].n;
}

/** `GET /auth/usage/history/v2/{event_id}`: one event of the account, with its audit details. */
export async function getUsageEvent(db: Db, accountId: string, eventId: string): Promise<UsageEventItem> {
  const result = await db.execute(sql`SELECT ${usageItemColumns(true)} FROM usage_events e WHERE e.id = ${eventId}::uuid AND e.account_id = ${accountId}`);
  const row = rows<UsageEventRecord>(result)[0];
  if (!row) throw notFound(`Usage event ${eventId} not found`);
  return usageItem(row, true);
}

export interface UsageFeedInput extends WindowRequest {
  filters: UsageFilters;
  cursor?: string;
  pageSize: number;
}

const FEED_COLUMNS = sql.raw(`e.id, e.created_at, e.event_type, e.tool_id, e.execution_id, e.search_id, e.session_id, e.success,
  e.charge_outcome, e.reason_code, e.actual_amount_credits::text AS actual_amount_credits, e.credits_ledger_entry_id,
  e.billing_summary, e.duration_ms`);

/** The keyset position of a row (alias `e`): its created_at with microseconds, exactly. */
export const CURSOR_TS = sql.raw(`to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_ts`);

/** The window cut at the cursor (to the millisecond above it; `afterCursor` makes the exact cut). */
function beforeCursor(w: TimeWindow, cursor: string | undefined): TimeWindow {
  if (!cursor) return w;
  const at = Date.parse(decodeCursor(cursor, TIMESTAMP_KEY, UUID_ID).key) + 1;
  if (w.endDate !== null && w.endDate.getTime() <= at) return w;
  const endDate = new Date(at);
  return { ...w, end: endDate.toISOString().replace("Z", "000Z"), endDate };
}

export function afterCursor(cursor: string | undefined): SQL {
  if (!cursor) return sql`true`;
  const c = decodeCursor(cursor, TIMESTAMP_KEY, UUID_ID);
  return sql`(e.created_at, e.id) < (${c.key}::timestamptz, ${c.id}::uuid)`;
}

/**
 * `GET /auth/usage/history/v2/summary`: a lightweight feed paged by keyset on (created_at, id),
 * so rows written after the first page never shift or repeat later pages.
 */
export async function usageFeed(db: Db, accountId: string, input: UsageFeedInput) {
  const w = await resolveWindow(db, accountId, input);
  const filters = await withAnomalyScope(db, accountId, w, input.filters);
  const conditions = sql`${and(usageConditions(filters, "events")!)} AND ${afterCursor(input.cursor)}`;
  const need = input.pageSize + 1;
  let ranges = null;
  if (usageConditions(filters, "rollup")) {
    await ensureSealed(db, accountId, w);
    ranges = await guidedRanges(db, accountId, beforeCursor(w, input.cursor), filters, need);
  }
  const result = await db.execute(
    ranges
      ? sql`
        WITH page AS (
          SELECT x.id, x.created_at FROM (${inRanges(ranges, need, (range) => sql`SELECT e.id, e.created_at FROM usage_events e WHERE e.account_id = ${accountId} AND ${range} AND ${conditions}`)}) x
           ORDER BY x.created_at DESC, x.id DESC LIMIT ${need})
        SELECT ${FEED_COLUMNS}, ${CURSOR_TS} FROM page JOIN usage_events e ON e.id = page.id AND e.created_at = page.created_at AND e.account_id = ${accountId}
         ${USAGE_NEWEST_FIRST}`
      : sql`
        SELECT ${FEED_COLUMNS}, ${CURSOR_TS} FROM usage_events e
         WHERE e.account_id = ${accountId} AND ${inWindow(sql.raw("e.created_at"), w.start, w.end)} AND ${conditions}
         ${USAGE_NEWEST_FIRST} LIMIT ${need}`,
  );
  type FeedRow = {
    id: string;
    created_at: Date | string;
    event_type: UsageEventItem["event_type"];
    tool_id: string | null;
    execution_id: string | null;
    search_id: string | null;
    session_id: string | null;
    success: boolean;
    charge_outcome: UsageEventItem["charge_outcome"];
    reason_code: string | null;
    actual_amount_credits: string;
    credits_ledger_entry_id: string | null;
    billing_summary: string | null;
    duration_ms: number | null;
    cursor_ts: string;
  };
  const all = rows<FeedRow>(result);
  const page = all.slice(0, input.pageSize);
  const last = page.at(-1);
  const hasMore = all.length > input.pageSize;
  return {
    items: page.map(({ cursor_ts: _, ...r }) => ({ ...r, created_at: toIso(r.created_at), actual_amount_credits: creditsToNumber(r.actual_amount_credits) })),
    page_size: input.pageSize,
    next_cursor: hasMore && last ? encodeCursor(last.cursor_ts, last.id) : null,
    has_more: hasMore,
  };
}

export interface CreditsSpentInput extends WindowRequest {
  kind?: keyof typeof usageKinds;
  chargeOutcome?: UsageFilters["chargeOutcome"];
}

/** `GET /auth/usage/credits-spent`: one aggregate over the whole range (sealed hours + raw remainder). */
export async function creditsSpent(db: Db, accountId: string, input: CreditsSpentInput) {
  const w = await resolveWindow(db, accountId, input);
  const filters: UsageFilters = { kind: input.kind, chargeOutcome: input.chargeOutcome };
  await ensureSealed(db, accountId, w);
  const span = sealedSpan(w);
  const rollup = span
    ? sql`SELECT y.settled_credits AS amount, y.event_count AS n, y.charge_outcome FROM (${usageRollupRows(accountId, span, usageConditions(filters, "rollup")!)}) y
          UNION ALL`
    : sql``;
  const result = await db.execute(sql`
    SELECT coalesce(sum(amount), 0)::text AS spent, coalesce(sum(n), 0)::float8 AS events,
           coalesce(sum(n) FILTER (WHERE charge_outcome IN ('charged', 'failed_charged_review')), 0)::float8 AS charged
      FROM (${rollup}
            SELECT e.actual_amount_credits, 1, e.charge_outcome FROM usage_events e
             WHERE e.account_id = ${accountId} AND ${rawRemainder(sql.raw("e.created_at"), w, span)} AND ${and(usageConditions(filters, "events")!)}) x(amount, n, charge_outcome)`);
  const row = rows<{ spent: string; events: number; charged: number }>(result)[0];
  return {
    credits_spent: creditsToNumber(row.spent),
    event_count: row.events,
    charged_event_count: row.charged,
    start_date: w.startDate?.toISOString() ?? null,
    end_date: w.endDate?.toISOString() ?? null,
    kind: input.kind ?? null,
    charge_outcome: input.chargeOutcome ?? null,
  };
}

/**
 * What each API key of the account has spent over its whole history: the settled credits and the
 * number of its usage events. Sealed hours come from the rollups and only the unsealed tail from
 * raw rows, so the keys page costs the same in an account's first week and its fifth year.
 */
export async function spendByApiKey(db: Db, accountId: string): Promise<Map<string, { spent: string; events: number }>> {
  const w = await resolveWindow(db, accountId, {});
  await ensureSealed(db, accountId, w);
  const span = sealedSpan(w);
  const rollup = span ? sql`SELECT y.api_key_id, y.settled_credits, y.event_count FROM (${usageRollupRows(accountId, span, [])}) y UNION ALL` : sql``;
  const result = await db.execute(sql`
    SELECT api_key_id, sum(amount)::text AS spent, sum(n)::float8 AS events
      FROM (${rollup}
            SELECT e.api_key_id, e.settled_amount_credits, 1 FROM usage_events e
             WHERE e.account_id = ${accountId} AND ${rawRemainder(sql.raw("e.created_at"), w, span)}) x(api_key_id, amount, n)
     WHERE api_key_id IS NOT NULL
     GROUP BY api_key_id`);
  return new Map(rows<{ api_key_id: string; spent: string; events: number }>(result).map((r) => [r.api_key_id, { spent: r.spent, events: r.events }]));
}

import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { type Cell, keysetCsvStream } from "./csv";
import { type LedgerFilters, ledgerConditions } from "./ledger-filters";
import { withAnomalyScope } from "./ready-days";
import { type TimeWindow, type WindowRequest, inWindow, resolveWindow, sealedSpan } from "./time-window";
import { type UsageFilters, and, anomaliesOf, usageConditions } from "./usage-filters";
import { sourceRefId, usageJsonCsv } from "./usage-compact";

/**
 * Most rows per keyset batch (fewer when rows are large): one indexed range query each. The planner
 * prices the anomaly probes at ~34 a row, so 1,000 rows stay well below the default jit_above_cost
 * (100,000); compiling a batch's plan took ~100 ms, running it ~10 ms.
 */
export const EXPORT_BATCH = 1000;

const US = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

const USAGE_HEADER = [
  "id", "created_at", "event_type", "source_system", "source_ref_type", "source_ref_id", "session_id", "search_id", "execution_id",
  "tool_id", "api_key_id", "success", "billable_success", "charge_outcome", "reason_code", "error_message", "duration_ms",
  "billing_snapshot_status", "billing_rule_snapshot", "pre_settlement_bill", "settlement_result", "pre_settlement_amount_credits",
  "settled_amount_credits", "requested_amount_credits", "actual_amount_credits", "execution_outcome", "outcome",
  "credits_ledger_entry_id", "display_target", "billing_summary", "model", "cache_hit", "anomalies",
  // Extension, last so positional readers of the contract's columns are unaffected.
  "channel",
];
const DETAIL_HEADER = ["request_payload", "response_payload_summary"];

interface UsageCsvRow {
  id: string;
  ts: string;
  event_type: string;
  channel: string;
  source_system: string;
  source_ref_type: string | null;
  source_ref_id: string | null;
  session_id: string | null;
  search_id: string | null;
  execution_id: string | null;
  tool_id: string | null;
  api_key_id: string | null;
  success: boolean;
  billable_success: boolean;
  charge_outcome: string;
  reason_code: string | null;
  error_message: string | null;
  duration_ms: number | null;
  billing_snapshot_status: string;
  billing_rule_snapshot: string | null;
  pre_settlement_bill: string | null;
  settlement_result: string | null;
  pre: string;
  settled: string;
  requested: string;
  actual: string;
  execution_outcome: string | null;
  outcome: string | null;
  credits_ledger_entry_id: string | null;
  display_target: string | null;
  billing_summary: string | null;
  model: string | null;
  cache_hit: boolean;
  anomalies: string;
  request_payload?: string | null;
  response_payload_summary?: string | null;
}

/**
 * A validated export, not started: calling it runs the first batch query and returns the stream.
 * The route writes a support user's access-log row in between, so rejected queries (400 -7) are
 * not logged and no row is read before the log is written.
 */
export type OpenCsv = () => ReadableStream<Uint8Array>;

export interface UsageExportInput extends WindowRequest {
  filters: UsageFilters;
  includeDetails: boolean;
}

/** Batch and slice sizes of the usage export (tests make them small). */
export interface ExportTuning {
  batchSize: number;
  /** About this many events a slice (the rollups' count); Infinity: the whole window is one slice. */
  sliceRows: number;
}

/**
 * The usage export reads slices of about 250 events in batches of up to 500 rows, two queries in
 * flight. At 1M events (`npm run bench:audit`): 46-49k rows/s against 32-35k for one keyset walk
 * in batches of 1,000; peak RSS ~270-295 MB against ~150 MB — V8 sizes the heap by the allocation
 * rate (the live heap after a forced GC stays 42-44 MB). docs/audit.md.
 */
export const USAGE_EXPORT: ExportTuning = { batchSize: 500, sliceRows: 250 };

/** [from, to): instants as text; null = unbounded. */
export type Slice = [string | null, string | null];

const usHour = (d: Date) => d.toISOString().replace("Z", "000Z");

/**
 * The window cut into consecutive time slices, newest first, of about `sliceRows` events each as
 * the sealed rollups count them with the same filter: the unsealed tail, then runs of sealed hours,
 * then the rest down to the window's start. Slices partition the window, so every event is in
 * exactly one. The whole window when the rollups cannot count the filter.
 */
export async function exportSlices(db: Db, accountId: string, w: TimeWindow, filters: UsageFilters, sliceRows: number): Promise<Slice[]> {
  const conditions = usageConditions(filters, "rollup");
  const span = conditions && Number.isFinite(sliceRows) ? sealedSpan(w) : null;
  if (!conditions || !span) return [[w.start, w.end]];
  const hours = rows<{ h: Date | string; n: number }>(
    await db.execute(sql`
      SELECT r.hour_start AS h, sum(r.event_count)::float8 AS n FROM usage_hourly_rollup r
       WHERE r.account_id = ${accountId} AND ${inWindow(sql.raw("r.hour_start"), span.lo, span.hi)} AND ${and(conditions)}
       GROUP BY r.hour_start ORDER BY r.hour_start DESC`),
  );
  const slices: Slice[] = [];
  let top = usHour(span.hi);
  if (w.end === null || w.end > top) slices.push([top, w.end]);
  let n = 0;
  for (const hour of hours) {
    n += hour.n;
    if (n < sliceRows) continue;
    const from = usHour(new Date(hour.h));
    slices.push([from, top]);
    top = from;
    n = 0;
  }
  slices.push([w.start, top]);
  return slices;
}

/**
 * Reads slices newest first, each by keyset batches, and returns `limit` rows a call (fewer only at
 * the end). While a slice is read, the first batch of the next one is already being read on a
 * second connection, so PostgreSQL works on the next slice while the server formats this one —
 * on 2 cores, one backend and the server otherwise wait on each other.
 */
function slicedReader<R>(cut: () => Promise<Slice[]>, query: (slice: Slice, after: R | null, limit: number) => Promise<R[]>) {
  let slices: Slice[] = [];
  const firsts = new Map<number, { batch: Promise<R[]>; limit: number }>();
  const first = (i: number, limit: number) => {
    let f = firsts.get(i);
    if (!f) {
      f = { batch: query(slices[i], null, limit), limit };
      // Awaited when its slice comes; until then a failure must not go unhandled.
      f.batch.catch(() => {});
      firsts.set(i, f);
    }
    return f;
  };
  let buffer: R[] = [];
  let i = 0;
  let after: R | null = null;
  let started = false;
  return async (limit: number): Promise<R[]> => {
    if (!started) {
      started = true;
      slices = await cut();
    }
    while (buffer.length < limit && i < slices.length) {
      if (i + 1 < slices.length) first(i + 1, limit);
      let batch: R[];
      let asked = limit;
      if (after === null) {
        const f = first(i, limit);
        firsts.delete(i);
        asked = f.limit;
        batch = await f.batch;
      } else {
        batch = await query(slices[i], after, limit);
      }
      buffer = buffer.length === 0 ? batch : buffer.concat(batch);
      if (batch.length === asked) after = batch[batch.length - 1];
      else {
        i++;
        after = null;
      }
    }
    const out = buffer.slice(0, limit);
    buffer = buffer.slice(limit);
    return out;
  };
}

/**
 * `GET /auth/usage/history/v2/export`: the filtered events as CSV, newest first, streamed in keyset
 * batches. JSON columns are read as text (no parse/serialise round trip) and amounts are exact decimals
 * formatted by PostgreSQL (`trim_scale`).
 */
export async function exportUsageCsv(
  db: Db,
  accountId: string,
  input: UsageExportInput,
  tuning: ExportTuning = USAGE_EXPORT,
): Promise<OpenCsv> {
  const w = await resolveWindow(db, accountId, input);
  const filters = await withAnomalyScope(db, accountId, w, input.filters);
  const where = sql`e.account_id = ${accountId} AND ${and(usageConditions(filters, "events")!)}`;
  const details = input.includeDetails;
  const query = async ([from, to]: Slice, after: UsageCsvRow | null, limit: number) =>
    rows<UsageCsvRow>(
      await db.execute(sql`
        SELECT e.id, to_char(e.created_at AT TIME ZONE 'UTC', ${sql.raw(US)}) AS ts, e.event_type, e.source_system, e.source_ref_type,
               ${sourceRefId()} AS source_ref_id, e.session_id, e.search_id, e.execution_id, e.tool_id, e.api_key_id, e.success,
               e.billable_success, e.charge_outcome, e.reason_code, e.error_message, e.duration_ms, e.billing_snapshot_status,
               e.billing_rule_snapshot::text AS billing_rule_snapshot, ${usageJsonCsv("pre_settlement_bill")} AS pre_settlement_bill,
               ${usageJsonCsv("settlement_result")} AS settlement_result, trim_scale(e.pre_settlement_amount_credits)::text AS pre,
               trim_scale(e.settled_amount_credits)::text AS settled, trim_scale(e.requested_amount_credits)::text AS requested,
               trim_scale(e.actual_amount_credits)::text AS actual, ${usageJsonCsv("execution_outcome")} AS execution_outcome, e.outcome,
               e.credits_ledger_entry_id, e.display_target, e.billing_summary, e.model, e.cache_hit, a.anomalies, e.channel
               ${details ? sql`, ${usageJsonCsv("request_payload")} AS request_payload, e.response_payload_summary::text AS response_payload_summary` : sql``}
          FROM usage_events e
         -- Planned with the whole range, the anomaly checks become hashed subplans that read every ledger row
         -- of the database once per batch; kept in their own subquery (OFFSET 0) they are index probes per row.
         CROSS JOIN LATERAL (SELECT array_to_string(${anomaliesOf}, ';') AS anomalies OFFSET 0) a
         WHERE ${where} AND ${inWindow(sql.raw("e.created_at"), from, to)}
               ${after ? sql`AND (e.created_at, e.id) < (${after.ts}::timestamptz, ${after.id}::uuid)` : sql``}
         ORDER BY e.created_at DESC NULLS LAST, e.id DESC NULLS LAST
         LIMIT ${limit}`),
    );
  return () => {
    // The slices are cut when the stream starts, after the route has logged the access.
    const read = slicedReader(() => exportSlices(db, accountId, w, filters, tuning.sliceRows), query);
    return keysetCsvStream<UsageCsvRow>({
      header: details ? [...USAGE_HEADER, ...DETAIL_HEADER] : USAGE_HEADER,
      batchSize: tuning.batchSize,
      fetch: (_after, limit) => read(limit),
      cells: (r): Cell[] => [
        r.id, r.ts, r.event_type, r.source_system, r.source_ref_type, r.source_ref_id, r.session_id, r.search_id, r.execution_id,
        r.tool_id, r.api_key_id, r.success, r.billable_success, r.charge_outcome, r.reason_code, r.error_message, r.duration_ms,
        r.billing_snapshot_status, r.billing_rule_snapshot, r.pre_settlement_bill, r.settlement_result, r.pre, r.settled,
        r.requested, r.actual, r.execution_outcome, r.outcome, r.credits_ledger_entry_id, r.display_target,
        r.billing_summary, r.model, r.cache_hit, r.anomalies, r.channel,
        ...(details ? [r.request_payload, r.response_payload_summary] : []),
      ],
    });
  };
}

const LEDGER_HEADER = [
  "id", "created_at", "entry_type", "amount_credits", "balance_before", "balance_after", "source_system", "source_ref_type",
  "source_ref_id", "execution_id", "usage_event_id", "pre_settlement_bill", "settlement_result", "ledger_metadata", "description",
];

interface LedgerCsvRow {
  id: string;
  seq: number;
  ts: string;
  entry_type: string;
  amount: string;
  before: string;
  after: string;
  source_system: string;
  source_ref_type: string | null;
  source_ref_id: string | null;
  execution_id: string | null;
  usage_event_id: string | null;
  pre_settlement_bill: string | null;
  settlement_result: string | null;
  ledger_metadata: string | null;
  description: string;
}

export interface LedgerExportInput extends WindowRequest {
  filters: LedgerFilters;
}

/** `GET /auth/credits/ledger/export`: the filtered ledger as CSV, newest first, in keyset batches on (created_at, seq). */
export async function exportLedgerCsv(db: Db, accountId: string, input: LedgerExportInput): Promise<OpenCsv> {
  const w = await resolveWindow(db, accountId, input);
  const where = sql`l.account_id = ${accountId} AND ${inWindow(sql.raw("l.created_at"), w.start, w.end)} AND ${and(ledgerConditions(input.filters))}`;
  return () => keysetCsvStream<LedgerCsvRow>({
    header: LEDGER_HEADER,
    batchSize: EXPORT_BATCH,
    fetch: async (after, limit) =>
      rows<LedgerCsvRow>(
        await db.execute(sql`
          SELECT l.id, l.seq, to_char(l.created_at AT TIME ZONE 'UTC', ${sql.raw(US)}) AS ts, l.entry_type, trim_scale(l.amount_credits)::text AS amount,
                 trim_scale(l.balance_before)::text AS before, trim_scale(l.balance_after)::text AS after, l.source_system, l.source_ref_type, l.source_ref_id,
                 l.execution_id, l.usage_event_id, l.pre_settlement_bill::text AS pre_settlement_bill,
                 l.settlement_result::text AS settlement_result, l.ledger_metadata::text AS ledger_metadata, l.description
            FROM credits_ledger l
           WHERE ${where} ${after ? sql`AND (l.created_at, l.seq) < (${after.ts}::timestamptz, ${after.seq}::bigint)` : sql``}
           ORDER BY l.created_at DESC NULLS LAST, l.seq DESC NULLS LAST
           LIMIT ${limit}`),
      ),
    cells: (r): Cell[] => [
      r.id, r.ts, r.entry_type, r.amount, r.before, r.after, r.source_system, r.source_ref_type, r.source_ref_id,
      r.execution_id, r.usage_event_id, r.pre_settlement_bill, r.settlement_result, r.ledger_metadata, r.description,
    ],
  });
}

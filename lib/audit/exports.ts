import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { type Cell, keysetCsvStream } from "./csv";
import { type CsvColumn, copyCsvStatement, copyCsvStream, takeCopySlot } from "./csv-copy";
import { poolOf } from "../db/open";
import { type CsvExportName, countCsvExport } from "../observability/metrics";
import { type LedgerFilters, ledgerConditions } from "./ledger-filters";
import { LEDGER_NEWEST_FIRST } from "./ledger-history";
import { USAGE_NEWEST_FIRST } from "./usage-history";
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

/** A column of `e` (usage_events) or `l` (credits_ledger). */
const text = (name: string, expr: SQL = sql.raw(`e.${name}`)): CsvColumn => ({ name, sql: expr, kind: "text" });
const value = (name: string, expr: SQL = sql.raw(`e.${name}`)): CsvColumn => ({ name, sql: expr, kind: "value" });
const TS = (alias: string) => sql.raw(`to_char(${alias}.created_at AT TIME ZONE 'UTC', ${US})`);
/** Exact decimals as PostgreSQL writes them, without trailing zeros. */
const credits = (column: string) => sql.raw(`trim_scale(${column})::text`);

/** The usage export's columns, in the contract's order; JSON columns as JSON text. */
function usageColumns(details: boolean): CsvColumn[] {
  return [
    value("id"), value("created_at", TS("e")), text("event_type"), text("source_system"), text("source_ref_type"),
    text("source_ref_id", sourceRefId()), text("session_id"), text("search_id"), text("execution_id"), text("tool_id"),
    text("api_key_id"), value("success"), value("billable_success"), text("charge_outcome"), text("reason_code"),
    text("error_message"), value("duration_ms"), text("billing_snapshot_status"), text("billing_rule_snapshot", sql.raw("e.billing_rule_snapshot::text")),
    text("pre_settlement_bill", usageJsonCsv("pre_settlement_bill")), text("settlement_result", usageJsonCsv("settlement_result")),
    value("pre_settlement_amount_credits", credits("e.pre_settlement_amount_credits")), value("settled_amount_credits", credits("e.settled_amount_credits")),
    value("requested_amount_credits", credits("e.requested_amount_credits")), value("actual_amount_credits", credits("e.actual_amount_credits")),
    text("execution_outcome", usageJsonCsv("execution_outcome")), text("outcome"), text("credits_ledger_entry_id"), text("display_target"),
    text("billing_summary"), text("model"), value("cache_hit"), text("anomalies", sql.raw("a.anomalies")),
    // Extension, last so positional readers of the contract's columns are unaffected.
    text("channel"),
    ...(details
      ? [text("request_payload", usageJsonCsv("request_payload")), text("response_payload_summary", sql.raw("e.response_payload_summary::text"))]
      : []),
  ];
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

export type ExportMethod = "auto" | "keyset";

/** Batch and slice sizes of the usage export (tests make them small). */
export interface ExportTuning {
  /** "auto": COPY on PostgreSQL when a slot is free, else keyset batches; "keyset": keyset batches always. */
  method?: ExportMethod;
  batchSize: number;
  /** About this many events a slice (the rollups' count); Infinity: the whole window is one slice. */
  sliceRows: number;
  /** The same for COPY: one statement, and so one snapshot, a slice (default `COPY_SLICE_ROWS`). */
  copySliceRows?: number;
}

/**
 * Events per COPY statement. A statement holds its snapshot until its last row is sent, and a
 * snapshot held holds back VACUUM everywhere (the balance rows every Call updates among them): a
 * slice bounds that to its own rows, ~0.2 s at full speed, however large the export or slow the
 * client. Each statement costs ~5 ms of planning.
 */
export const COPY_SLICE_ROWS = 20_000;

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
 * exactly one. When the rollups cannot count the filter: the whole window, or with `upperBound`,
 * slices of about `sliceRows` events of any kind (a bound on the filter's rows).
 */
export async function exportSlices(
  db: Db,
  accountId: string,
  w: TimeWindow,
  filters: UsageFilters,
  sliceRows: number,
  options: { upperBound?: boolean } = {},
): Promise<Slice[]> {
  const conditions = usageConditions(filters, "rollup") ?? (options.upperBound ? [] : null);
  if (!conditions) return [[w.start, w.end]];
  // Without a filter each hour's count is one row of the totals.
  const table = sql.raw(conditions.length === 0 ? "usage_hourly_totals" : "usage_hourly_rollup");
  return timeSlices(w, sliceRows, (lo, hi) =>
    db.execute(sql`
      SELECT r.hour_start AS h, sum(r.event_count)::float8 AS n FROM ${table} r
       WHERE r.account_id = ${accountId} AND ${inWindow(sql.raw("r.hour_start"), lo, hi)} AND ${and(conditions)}
       GROUP BY r.hour_start ORDER BY r.hour_start DESC`),
  );
}

/** The same for the ledger, by every entry of the sealed hours (a bound on any filter's rows). */
export async function ledgerSlices(db: Db, accountId: string, w: TimeWindow, sliceRows: number): Promise<Slice[]> {
  return timeSlices(w, sliceRows, (lo, hi) =>
    db.execute(sql`
      SELECT r.hour_start AS h, sum(r.entry_count)::float8 AS n FROM ledger_hourly_rollup r
       WHERE r.account_id = ${accountId} AND ${inWindow(sql.raw("r.hour_start"), lo, hi)}
       GROUP BY r.hour_start ORDER BY r.hour_start DESC`),
  );
}

/** Slices of `w` from the counts of its sealed hours, newest first (`hours` returns them so). */
async function timeSlices(w: TimeWindow, sliceRows: number, hours: (lo: Date | null, hi: Date) => Promise<unknown>): Promise<Slice[]> {
  const span = Number.isFinite(sliceRows) ? sealedSpan(w) : null;
  if (!span) return [[w.start, w.end]];
  const slices: Slice[] = [];
  let top = usHour(span.hi);
  if (w.end === null || w.end > top) slices.push([top, w.end]);
  let n = 0;
  for (const hour of rows<{ h: Date | string; n: number }>(await hours(span.lo, span.hi))) {
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

/** The keyset path's SELECT list: the cells as c0, c1…, then the cursor as k0, k1. */
function keysetSelect(columns: CsvColumn[], cursor: SQL[]): SQL {
  const cells = columns.map((c, i) => sql`${c.sql} AS ${sql.raw(`c${i}`)}`);
  return sql.join([...cells, ...cursor.map((k, i) => sql`${k} AS ${sql.raw(`k${i}`)}`)], sql`, `);
}

type KeysetRow = Record<string, Cell>;

function cellsOf(columns: CsvColumn[]): (r: KeysetRow) => Cell[] {
  const names = columns.map((_, i) => `c${i}`);
  return (r) => names.map((n) => r[n]);
}

/**
 * Opens an export by COPY on PostgreSQL while a COPY slot is free (`takeCopySlot`), else (PGlite,
 * a busy pool, `method: "keyset"`) by keyset batches. The two write the same bytes.
 */
function openCsv(
  db: Db,
  name: CsvExportName,
  method: ExportMethod,
  header: string[],
  copy: () => Promise<string[]>,
  keyset: () => ReadableStream<Uint8Array>,
): OpenCsv {
  return () => {
    const pool = method === "auto" ? poolOf(db) : undefined;
    const release = pool ? takeCopySlot(pool) : null;
    countCsvExport(name, pool && release ? "copy" : "keyset");
    return pool && release ? copyCsvStream(pool, header, copy, release) : keyset();
  };
}

/**
 * `GET /auth/usage/history/v2/export`: the filtered events as CSV, newest first. JSON columns are
 * read as text (no parse/serialise round trip) and amounts are exact decimals formatted by
 * PostgreSQL (`trim_scale`).
 */
export async function exportUsageCsv(
  db: Db,
  accountId: string,
  input: UsageExportInput,
  tuning: ExportTuning = USAGE_EXPORT,
): Promise<OpenCsv> {
  const w = await resolveWindow(db, accountId, input);
  const filters = await withAnomalyScope(db, accountId, w, input.filters);
  const columns = usageColumns(input.includeDetails);
  const where = sql`e.account_id = ${accountId} AND ${and(usageConditions(filters, "events")!)}`;
  // Planned with the whole range, the anomaly checks become hashed subplans that read every ledger row
  // of the database once per batch; kept in their own subquery (OFFSET 0) they are index probes per row.
  const from = (window: SQL) => sql`
    FROM usage_events e
    CROSS JOIN LATERAL (SELECT array_to_string(${anomaliesOf}, ';') AS anomalies OFFSET 0) a
    WHERE ${where} AND ${window}`;
  const select = keysetSelect(columns, [TS("e"), sql.raw("e.id")]);
  const query = async ([lo, hi]: Slice, after: KeysetRow | null, limit: number) =>
    rows<KeysetRow>(
      await db.execute(sql`
        SELECT ${select} ${from(inWindow(sql.raw("e.created_at"), lo, hi))}
               ${after ? sql`AND (e.created_at, e.id) < (${after.k0}::timestamptz, ${after.k1}::uuid)` : sql``}
         ${USAGE_NEWEST_FIRST} LIMIT ${limit}`),
    );
  const header = columns.map((c) => c.name);
  return openCsv(
    db,
    "usage",
    tuning.method ?? "auto",
    header,
    async () => {
      const slices = await exportSlices(db, accountId, w, filters, tuning.copySliceRows ?? COPY_SLICE_ROWS, { upperBound: true });
      return slices.map(([lo, hi]) =>
        copyCsvStatement(columns, from(inWindow(sql.raw("e.created_at"), lo, hi)), [sql.raw("e.created_at"), sql.raw("e.id")]),
      );
    },
    () => {
      // The slices are cut when the stream starts, after the route has logged the access.
      const read = slicedReader(() => exportSlices(db, accountId, w, filters, tuning.sliceRows), query);
      return keysetCsvStream<KeysetRow>({ header, batchSize: tuning.batchSize, fetch: (_after, limit) => read(limit), cells: cellsOf(columns) });
    },
  );
}

const ledgerColumns: CsvColumn[] = [
  value("id", sql.raw("l.id")), value("created_at", TS("l")), text("entry_type", sql.raw("l.entry_type")),
  value("amount_credits", credits("l.amount_credits")), value("balance_before", credits("l.balance_before")),
  value("balance_after", credits("l.balance_after")), text("source_system", sql.raw("l.source_system")),
  text("source_ref_type", sql.raw("l.source_ref_type")), text("source_ref_id", sql.raw("l.source_ref_id")),
  text("execution_id", sql.raw("l.execution_id")), text("usage_event_id", sql.raw("l.usage_event_id")),
  text("pre_settlement_bill", sql.raw("l.pre_settlement_bill::text")), text("settlement_result", sql.raw("l.settlement_result::text")),
  text("ledger_metadata", sql.raw("l.ledger_metadata::text")), text("description", sql.raw("l.description")),
];

export interface LedgerExportInput extends WindowRequest {
  filters: LedgerFilters;
}

/** `GET /auth/credits/ledger/export`: the filtered ledger as CSV, newest first (keyset batches on (created_at, seq)). */
export async function exportLedgerCsv(
  db: Db,
  accountId: string,
  input: LedgerExportInput,
  tuning: { method?: ExportMethod; copySliceRows?: number } = {},
): Promise<OpenCsv> {
  const w = await resolveWindow(db, accountId, input);
  const filtered = sql`l.account_id = ${accountId} AND ${and(ledgerConditions(input.filters))}`;
  const where = sql`${filtered} AND ${inWindow(sql.raw("l.created_at"), w.start, w.end)}`;
  const header = ledgerColumns.map((c) => c.name);
  const select = keysetSelect(ledgerColumns, [TS("l"), sql.raw("l.seq")]);
  return openCsv(
    db,
    "ledger",
    tuning.method ?? "auto",
    header,
    async () => {
      const slices = await ledgerSlices(db, accountId, w, tuning.copySliceRows ?? COPY_SLICE_ROWS);
      return slices.map(([lo, hi]) =>
        copyCsvStatement(ledgerColumns, sql`FROM credits_ledger l WHERE ${filtered} AND ${inWindow(sql.raw("l.created_at"), lo, hi)}`, [
          sql.raw("l.created_at"),
          sql.raw("l.seq"),
        ]),
      );
    },
    () =>
      keysetCsvStream<KeysetRow>({
        header,
        batchSize: EXPORT_BATCH,
        fetch: async (after, limit) =>
          rows<KeysetRow>(
            await db.execute(sql`
              SELECT ${select} FROM credits_ledger l
               WHERE ${where} ${after ? sql`AND (l.created_at, l.seq) < (${after.k0}::timestamptz, ${after.k1}::bigint)` : sql``}
               ${LEDGER_NEWEST_FIRST} LIMIT ${limit}`),
          ),
        cells: cellsOf(ledgerColumns),
      }),
  );
}

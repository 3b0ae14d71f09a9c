import { type SQL, sql } from "drizzle-orm";
import { inWindow } from "./time-window";

/**
 * The ledger readiness checks (docs/audit.md), as one set-based statement over a set of usage
 * events and ledger rows selected by `created_at`, grouped into buckets:
 *
 * - every `charged` / `failed_charged_review` event has exactly one ledger row (linked by the
 *   event's `credits_ledger_entry_id`, the row's `usage_event_id`, or a consume row of the same
 *   `execution_id`), whose amount is minus the event's `actual_amount_credits`; support refunds
 *   (`refund_*` rows, which name the event they refund) are not that row;
 * - `included` / `failed_not_charged` events have no ledger row;
 * - every consume row (except `consume_payment_refund`, which refunds a payment, not a usage) has
 *   exactly one charged event;
 * - the balance chain is continuous: each row's `balance_before` equals the `balance_after` of the
 *   account's previous row by `seq` (0 before the first row) and `balance_after = balance_before
 *   + amount_credits`. The sum of the amounts in a range then equals the balance delta.
 *
 * The same statement feeds the sealed daily summary (`ledger_daily_summary`) and the live checks of
 * `/auth/credits/ledger-readiness`, so the two cannot disagree.
 */

export const violationChecks = [
  "missing_ledger_links",
  "duplicate_ledger_links",
  "amount_mismatches",
  "uncharged_with_ledger",
  "consume_without_event",
  "consume_duplicate_events",
  "chain_breaks",
] as const;
export type ViolationCheck = (typeof violationChecks)[number];

export interface ReadinessRow extends Record<ViolationCheck, number> {
  b: string;
  events_checked: number;
  charged_events: number;
  ledger_entries_checked: number;
  entry_count: number;
  first_seq: number | null;
  last_seq: number | null;
  balance_open: string | null;
  balance_close: string | null;
  net_amount: string;
  by_entry_type: Record<string, { count: number; amount: string }>;
  samples: Partial<Record<ViolationCheck, string[]>>;
}

/** [from, to) on created_at; null = unbounded. */
export type TimeRange = [string | Date | null, string | Date | null];

export interface ReadinessScope {
  accountId: string;
  /** The rows to check, by `created_at`: one index range scan each. */
  ranges: TimeRange[];
  /** The bucket key (text) of a row; `buckets` lists every key to report, even without rows. */
  bucket: (col: SQL) => SQL;
  buckets: SQL;
  /**
   * Find each event's ledger rows by index probes, event by event: for the few rows of a live check
   * (the unsealed tail), where a planner guess could otherwise walk a whole ledger index for them.
   * The seal's day-sized ranges keep the set-based joins.
   */
  probe?: boolean;
}

const CHARGED = sql.raw(`('charged', 'failed_charged_review')`);
/** An event written with its ledger row (alias `led`): within a day of it. */
const NEAR = sql.raw(`e.created_at >= led.created_at - interval '1 day' AND e.created_at <= led.created_at + interval '1 day'`);

export function readinessQuery({ accountId: a, ranges, bucket, buckets, probe = false }: ReadinessScope): SQL {
  const ec = sql.raw("e.created_at");
  const lc = sql.raw("l.created_at");
  // Each range is its own SELECT (UNION ALL), so each stays an index range scan.
  const perRange = (col: SQL, select: (range: SQL) => SQL) =>
    ranges.length === 0 ? select(sql`false`) : sql.join(ranges.map(([from, to]) => select(inWindow(col, from, to))), sql` UNION ALL `);
  // The events a ledger row may link to lie within a day of it, so within a day of the ranges: said
  // with constants, the planner leaves the other months' partitions out of the plan.
  const nearRanges = ranges.length === 0 ? sql`false` : eventsNear(ranges);
  // Per event: how many ledger rows link to it and their amount. Set-based joins for the seal's
  // day-sized ranges; with `probe`, the event's links are read by index, event by event.
  const perEvent = probe
    ? sql`SELECT ev.id, ev.b, ev.charged, ev.actual, k.n, k.linked FROM ev CROSS JOIN LATERAL (
            SELECT count(*) AS n, coalesce(sum(u.amount_credits), 0) AS linked FROM (
              SELECT l.id, l.amount_credits FROM credits_ledger l WHERE l.id = ev.credits_ledger_entry_id AND l.account_id = ${a}
              UNION
              SELECT l.id, l.amount_credits FROM credits_ledger l WHERE l.usage_event_id = ev.id AND l.account_id = ${a} AND l.entry_type NOT LIKE 'refund%'
              UNION
              SELECT l.id, l.amount_credits FROM credits_ledger l WHERE l.execution_id = ev.execution_id AND l.account_id = ${a} AND l.entry_type LIKE 'consume%'
            ) u
          ) k`
    : sql`WITH ev_links AS (
            SELECT ev.id AS event_id, l.id AS ledger_id, l.amount_credits FROM ev JOIN credits_ledger l ON l.id = ev.credits_ledger_entry_id AND l.account_id = ${a}
            UNION
            SELECT ev.id, l.id, l.amount_credits FROM ev JOIN credits_ledger l
                ON l.usage_event_id = ev.id AND l.account_id = ${a} AND l.entry_type NOT LIKE 'refund%'
            UNION
            SELECT ev.id, l.id, l.amount_credits FROM ev JOIN credits_ledger l
                ON l.execution_id = ev.execution_id AND l.account_id = ${a} AND l.entry_type LIKE 'consume%'
          )
          SELECT ev.id, ev.b, ev.charged, ev.actual, count(k.ledger_id) AS n, coalesce(sum(k.amount_credits), 0) AS linked
            FROM ev LEFT JOIN ev_links k ON k.event_id = ev.id
           GROUP BY ev.id, ev.b, ev.charged, ev.actual`;
  return sql`
    WITH ev AS MATERIALIZED (
      ${perRange(
        ec,
        (range) => sql`SELECT e.id, e.execution_id, e.credits_ledger_entry_id, e.actual_amount_credits AS actual,
                              e.charge_outcome IN ${CHARGED} AS charged, ${bucket(ec)} AS b
                         FROM usage_events e WHERE e.account_id = ${a} AND ${range}`,
      )}
    ), per_event AS (
      ${perEvent}
    ), ev_stats AS (
      SELECT b, count(*) AS events_checked, count(*) FILTER (WHERE charged) AS charged_events,
             count(*) FILTER (WHERE charged AND n = 0) AS missing_ledger_links,
             count(*) FILTER (WHERE charged AND n > 1) AS duplicate_ledger_links,
             count(*) FILTER (WHERE charged AND n = 1 AND linked <> -actual) AS amount_mismatches,
             count(*) FILTER (WHERE NOT charged AND n > 0) AS uncharged_with_ledger,
             (array_agg(id::text) FILTER (WHERE charged AND n = 0))[1:5] AS s_missing,
             (array_agg(id::text) FILTER (WHERE charged AND n > 1))[1:5] AS s_duplicate,
             (array_agg(id::text) FILTER (WHERE charged AND n = 1 AND linked <> -actual))[1:5] AS s_amount,
             (array_agg(id::text) FILTER (WHERE NOT charged AND n > 0))[1:5] AS s_uncharged
        FROM per_event GROUP BY b
    ), led AS MATERIALIZED (
      ${perRange(
        lc,
        (range) => sql`SELECT l.id, l.seq, l.entry_type, l.amount_credits AS amount, l.balance_before, l.balance_after, l.usage_event_id,
                              l.execution_id, l.created_at, l.entry_type LIKE 'consume%' AND l.entry_type <> 'consume_payment_refund' AS needs_event,
                              ${bucket(lc)} AS b,
                              (SELECT p.balance_after FROM credits_ledger p WHERE p.account_id = ${a} AND p.seq < l.seq ORDER BY p.seq DESC LIMIT 1) AS prev_after
                         FROM credits_ledger l WHERE l.account_id = ${a} AND ${range}`,
      )}
    ), led_links AS (
      -- A consume row and its event are written by one statement (one created_at); the day either
      -- side lets a probe read the partitions of those days only, not every month's index.
      SELECT led.id AS ledger_id, e.id AS event_id FROM led JOIN usage_events e
          ON e.credits_ledger_entry_id = led.id AND e.account_id = ${a} AND ${NEAR} AND ${nearRanges}
      UNION
      SELECT led.id, e.id FROM led JOIN usage_events e ON e.id = led.usage_event_id AND e.account_id = ${a} AND ${NEAR} AND ${nearRanges}
      UNION
      SELECT led.id, e.id FROM led JOIN usage_events e
          ON e.execution_id = led.execution_id AND e.account_id = ${a} AND e.charge_outcome IN ${CHARGED} AND ${NEAR} AND ${nearRanges}
    ), per_led AS (
      SELECT led.id, led.seq, led.b, led.amount, led.balance_before, led.balance_after, led.prev_after, led.needs_event, count(k.event_id) AS n
        FROM led LEFT JOIN led_links k ON k.ledger_id = led.id
       GROUP BY led.id, led.seq, led.b, led.amount, led.balance_before, led.balance_after, led.prev_after, led.needs_event
    ), led_stats AS (
      SELECT b, count(*) AS ledger_entries_checked,
             count(*) FILTER (WHERE needs_event AND n = 0) AS consume_without_event,
             count(*) FILTER (WHERE needs_event AND n > 1) AS consume_duplicate_events,
             count(*) FILTER (WHERE balance_before <> coalesce(prev_after, 0) OR balance_after <> balance_before + amount) AS chain_breaks,
             min(seq) AS first_seq, max(seq) AS last_seq, sum(amount) AS net_amount,
             (array_agg(balance_before ORDER BY seq))[1] AS balance_open,
             (array_agg(balance_after ORDER BY seq DESC))[1] AS balance_close,
             (array_agg(id) FILTER (WHERE needs_event AND n = 0))[1:5] AS s_consume,
             (array_agg(id) FILTER (WHERE needs_event AND n > 1))[1:5] AS s_consume_dup,
             (array_agg(id) FILTER (WHERE balance_before <> coalesce(prev_after, 0) OR balance_after <> balance_before + amount))[1:5] AS s_chain
        FROM per_led GROUP BY b
    ), by_type AS (
      SELECT b, jsonb_object_agg(entry_type, jsonb_build_object('count', n, 'amount', amount::text)) AS by_entry_type
        FROM (SELECT b, entry_type, count(*) AS n, sum(amount) AS amount FROM led GROUP BY b, entry_type) t
       GROUP BY b
    )
    SELECT k.b,
           coalesce(es.events_checked, 0)::float8 AS events_checked, coalesce(es.charged_events, 0)::float8 AS charged_events,
           coalesce(es.missing_ledger_links, 0)::float8 AS missing_ledger_links, coalesce(es.duplicate_ledger_links, 0)::float8 AS duplicate_ledger_links,
           coalesce(es.amount_mismatches, 0)::float8 AS amount_mismatches, coalesce(es.uncharged_with_ledger, 0)::float8 AS uncharged_with_ledger,
           coalesce(ls.ledger_entries_checked, 0)::float8 AS ledger_entries_checked, coalesce(ls.ledger_entries_checked, 0)::float8 AS entry_count,
           coalesce(ls.consume_without_event, 0)::float8 AS consume_without_event,
           coalesce(ls.consume_duplicate_events, 0)::float8 AS consume_duplicate_events, coalesce(ls.chain_breaks, 0)::float8 AS chain_breaks,
           ls.first_seq::float8 AS first_seq, ls.last_seq::float8 AS last_seq, ls.balance_open::text AS balance_open, ls.balance_close::text AS balance_close,
           coalesce(ls.net_amount, 0)::text AS net_amount, coalesce(bt.by_entry_type, '{}'::jsonb) AS by_entry_type,
           jsonb_strip_nulls(jsonb_build_object(
             'missing_ledger_links', es.s_missing, 'duplicate_ledger_links', es.s_duplicate, 'amount_mismatches', es.s_amount,
             'uncharged_with_ledger', es.s_uncharged, 'consume_without_event', ls.s_consume,
             'consume_duplicate_events', ls.s_consume_dup, 'chain_breaks', ls.s_chain)) AS samples
      FROM (${buckets}) k(b)
      LEFT JOIN ev_stats es ON es.b = k.b
      LEFT JOIN led_stats ls ON ls.b = k.b
      LEFT JOIN by_type bt ON bt.b = k.b
     ORDER BY k.b`;
}

/**
 * `e.created_at` within a day of the ranges' hull (what NEAR implies for a row in a range), with
 * constant bounds; true when the hull is unbounded on both sides.
 */
function eventsNear(ranges: TimeRange[]): SQL {
  const ms = (v: string | Date) => (typeof v === "string" ? Date.parse(v) : v.getTime());
  const froms = ranges.map(([from]) => from);
  const tos = ranges.map(([, to]) => to);
  const lo = froms.includes(null) ? null : Math.min(...froms.map((f) => ms(f!)));
  const hi = tos.includes(null) ? null : Math.max(...tos.map((t) => ms(t!)));
  const parts: SQL[] = [];
  if (lo !== null) parts.push(sql`e.created_at >= ${new Date(lo - DAY_MS).toISOString()}::timestamptz`);
  // Date.parse drops microseconds: one millisecond more keeps a bound with them inside.
  if (hi !== null) parts.push(sql`e.created_at <= ${new Date(hi + DAY_MS + 1).toISOString()}::timestamptz`);
  return parts.length === 0 ? sql`true` : sql.join(parts, sql` AND `);
}

const DAY_MS = 86_400_000;

/** `r.<check> = 0` for every check: a readiness row (alias `r`) with no violation. */
export const isReadyCondition = sql.raw(violationChecks.map((c) => `r.${c} = 0`).join(" AND "));

export function isReady(row: Record<ViolationCheck, number>): boolean {
  return violationChecks.every((c) => row[c] === 0);
}

/** The UTC day of a timestamp, as text (`YYYY-MM-DD`). */
export const utcDay = (col: SQL): SQL => sql`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { invalidInput } from "../errors";
import { creditsToNumber } from "../money";
import { analytic } from "./analytic";
import { type BoundedWindow, MAX_CUT_HOURS, isBounded } from "./buckets";
import { ensureSealed } from "./seal";
import { type SpendDim, beforeHour, spendDays, spendDimConditions, spendDimOf } from "./spend-rollup";
import { type WindowRequest, inWindow, resolveWindow } from "./time-window";
import { type UsageFilters, and, attributionConditions, outcomeConditions } from "./usage-filters";
import { outcomeCounts } from "./usage-rollup";

/**
 * Spend attribution (GET /auth/usage/breakdown): usage events and their credits grouped by who and
 * what spent them. A request naming one dimension reads its sealed whole UTC days from the spend
 * rollup (`usage_spend_day`, one row per day and value; a bucket boundary inside a day splits the
 * day by its hourly running sums) and the rest of the window from the events; a request across two
 * dimensions (or filtered on event type or success) is counted from the events. Refunds come from
 * the ledger's refund rows (attributed to the refunded Call's event and counted when they were
 * made). Totals are the usage summary's and the ledger's for the same window.
 */

export const breakdownDimensions = ["tool", "provider", "api_key", "oauth_client", "model", "run_id", "channel", "charge_outcome"] as const;
export type BreakdownDimension = (typeof breakdownDimensions)[number];
export const breakdownBuckets = ["hour", "day", "week", "month"] as const;
export type BreakdownBucket = (typeof breakdownBuckets)[number];

/** The filters the spend rollup can answer: its dimensions. */
export type BreakdownFilters = Pick<
  UsageFilters,
  "eventType" | "kind" | "success" | "chargeOutcome" | "channel" | "apiKeyId" | "toolId" | "providerId" | "oauthClientId" | "model" | "runId"
>;

export interface BreakdownInput extends WindowRequest {
  groupBy: BreakdownDimension[];
  bucket?: BreakdownBucket;
  limit: number;
  filters: BreakdownFilters;
}

export interface Measures {
  calls: number;
  charged_calls: number;
  charge_outcome_counts: { charged: number; included: number; failed_not_charged: number; failed_charged_review: number };
  pre_settlement_credits: number;
  settled_credits: number;
  refunded_credits: number;
}

export interface BreakdownGroup extends Measures {
  key: Partial<Record<BreakdownDimension, string | null>>;
  label: Partial<Record<BreakdownDimension, string | null>>;
  /** The groups past `limit`, summed. */
  other: boolean;
  buckets?: { bucket_start: string; calls: number; settled_credits: number; refunded_credits: number }[];
}

export interface Breakdown {
  start_date: string;
  end_date: string;
  tz: string;
  group_by: BreakdownDimension[];
  bucket: BreakdownBucket | null;
  limit: number;
  /** Groups in the window before `limit` folded the rest into `other`. */
  group_count: number;
  totals: Measures;
  groups: BreakdownGroup[];
  buckets: { bucket_start: string; bucket_start_local: string }[] | null;
}

/** Each dimension's row in the spend rollup: a provider is grouped from its tools'. */
const DIM: Record<BreakdownDimension, SpendDim> = {
  tool: "tool",
  provider: "tool",
  api_key: "api_key",
  oauth_client: "oauth_client",
  model: "model",
  run_id: "run_id",
  channel: "channel",
  charge_outcome: "charge_outcome",
};

/** Each dimension's key over a part row (alias `p`, with `t` the tool when grouping by provider). */
const KEY: Record<BreakdownDimension, string> = {
  tool: "p.tool_id",
  provider: "t.provider_id",
  api_key: "p.api_key_id::text",
  oauth_client: "p.oauth_client_id",
  model: "p.model",
  run_id: "p.run_id",
  channel: "p.channel",
  charge_outcome: "p.charge_outcome",
};

/** A part row's keys: the dimensions' columns (events' names). */
const KEY_COLUMNS = ["charge_outcome", "channel", "tool_id", "api_key_id", "oauth_client_id", "model", "run_id"] as const;
type KeyColumn = (typeof KEY_COLUMNS)[number];
const COLUMN_OF: Record<SpendDim, KeyColumn> = {
  tool: "tool_id",
  api_key: "api_key_id",
  oauth_client: "oauth_client_id",
  model: "model",
  run_id: "run_id",
  channel: "channel",
  charge_outcome: "charge_outcome",
};
/** A part row's measures over the window, and the two a bucket shows (with refunds) per bucket. */
const MEASURES = ["calls", "charged", "included", "fnc", "fcr", "pre", "settled", "refunded"];
const BUCKET_MEASURES = ["bcalls", "bsettled", "brefunded"];
const PART_COLUMNS = sql.raw(["b", ...KEY_COLUMNS, ...MEASURES, ...BUCKET_MEASURES].join(", "));
const MAX_BUCKETS = 10_000;
const HOUR = 3_600_000;
const UNIT_MS: Record<BreakdownBucket, number> = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 28 * 86_400_000 };

/** The breakdown's filters over events (alias `t`). */
function spendConditions(f: BreakdownFilters, t: string): SQL[] {
  return [...outcomeConditions(f, t), ...(f.channel ? [sql`${sql.raw(`${t}.channel`)} = ${f.channel}`] : []), ...attributionConditions(f, t)];
}

export async function usageBreakdown(db: Db, accountId: string, input: BreakdownInput): Promise<Breakdown> {
  const groupBy = [...new Set(input.groupBy)];
  if (groupBy.length < 1 || groupBy.length > 2) throw invalidInput("group_by takes one or two of: " + breakdownDimensions.join(", "));
  // Without dates: the last 30 days up to now (a missing end is now, a missing start 30 days before the end).
  const w = await resolveWindow(db, accountId, { ...input, defaultLastDays: 30 });
  if (!isBounded(w)) throw new Error("resolveWindow left a default window open");
  const bucket = input.bucket ?? null;
  if (bucket) {
    const count = Math.ceil((w.endDate.getTime() - w.startDate.getTime()) / UNIT_MS[bucket]) + 1;
    if (count > MAX_BUCKETS) throw invalidInput(`Invalid bucket: "${bucket}" gives ${count} buckets over this window (at most ${MAX_BUCKETS}); use a coarser bucket or a shorter window`);
  }

  const bucketKey = (col: SQL): SQL => (bucket ? sql`date_trunc(${sql.raw(`'${bucket}'`)}, ${col} AT TIME ZONE ${w.tz})` : sql`NULL::timestamp`);
  const { ctes, parts, totalParts } = await spendParts(db, accountId, w, bucket, groupBy, input.filters, bucketKey);
  const needsTool = groupBy.includes("provider");
  const k1 = sql.raw(KEY[groupBy[0]]);
  const k2 = groupBy[1] ? sql.raw(KEY[groupBy[1]]) : sql`NULL::text`;
  const sums = (t: string, names: string[]) => sql.raw(names.map((m) => `sum(${t}${m}) AS ${m}`).join(", "));
  const minus = (names: string[]) => sql.raw(names.map((m) => `a.${m} - coalesce(t.${m}, 0) AS ${m}`).join(", "));
  const out = (names: string[]) =>
    sql.raw(
      MEASURES.map((m) => {
        const given = names.includes(m) ? m : names.includes(`b${m}`) ? `b${m}` : null;
        const type = ["pre", "settled", "refunded"].includes(m) ? "text" : "float8";
        return `${given ? `coalesce(${given}, 0)` : "0"}::${type} AS ${m}`;
      }).join(", "),
    );
  // Rows and groups by their keys, NULL included, in a form a hash join can match.
  const sameKeys = (x: string, y: string) =>
    sql.raw(["k1", "k2"].map((k) => `coalesce(${x}.${k}, '') = coalesce(${y}.${k}, '') AND (${x}.${k} IS NULL) = (${y}.${k} IS NULL)`).join(" AND "));
  const label = (col: string) => sql`to_char((${sql.raw(col)} AT TIME ZONE ${w.tz}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const limit = input.limit;
  const series = bucket
    ? sql`SELECT generate_series(date_trunc(${sql.raw(`'${bucket}'`)}, ${w.start}::timestamptz AT TIME ZONE ${w.tz}),
                                 (${w.end}::timestamptz AT TIME ZONE ${w.tz}) - interval '1 microsecond', interval '1 ${sql.raw(bucket)}') AS b`
    : sql`SELECT NULL::timestamp AS b WHERE false`;

  // The groups are ranked on two sums; only the top `limit` get every measure (a join on 1-100 groups),
  // and `other` is the totals minus theirs: an account's 50,000 agent runs are summed twice, not eleven times.
  const result = await analytic<ResultRow>(
    db,
    sql`
    WITH ${sql.join([...ctes, sql`parts (${PART_COLUMNS}) AS (${parts})`], sql`, `)},
    keyed AS MATERIALIZED (
      SELECT p.*, ${k1} AS k1, ${k2} AS k2 FROM parts p ${needsTool ? sql`LEFT JOIN tools t ON t.id = p.tool_id` : sql``}
    ), g AS MATERIALIZED (
      -- Ranked in micro-credits (credits have six places): integer sums, exact, and far cheaper per group than numeric ones.
      SELECT k1, k2, sum((settled * 1000000)::bigint) AS settled, sum(calls) AS calls FROM keyed GROUP BY k1, k2
    ), top AS MATERIALIZED (
      SELECT k1, k2, row_number() OVER (ORDER BY settled DESC, calls DESC, k1 NULLS LAST, k2 NULLS LAST) AS slot
        FROM (SELECT * FROM g ORDER BY settled DESC, calls DESC, k1 NULLS LAST, k2 NULLS LAST LIMIT ${limit}) t
    ), total AS MATERIALIZED (
      SELECT ${sums("", MEASURES)}, (SELECT count(*) FROM g) AS groups FROM ${totalParts ? sql`(${totalParts}) p (${PART_COLUMNS})` : sql`keyed`}
    ), top_measures AS MATERIALIZED (
      SELECT t.slot, min(t.k1) AS k1, min(t.k2) AS k2, ${sums("p.", MEASURES)}
        FROM keyed p JOIN top t ON ${sameKeys("p", "t")} GROUP BY t.slot
    ), top_buckets AS MATERIALIZED (
      SELECT p.b, t.slot, ${sums("p.", BUCKET_MEASURES)}
        FROM keyed p JOIN top t ON ${sameKeys("p", "t")} WHERE p.b IS NOT NULL GROUP BY 1, 2
    )
    SELECT 't' AS part, NULL AS b, 0 AS slot, NULL AS k1, NULL AS k2, groups::float8 AS groups, ${out(MEASURES)} FROM total
    UNION ALL
    SELECT 'g', NULL, slot, k1, k2, 0, ${out(MEASURES)} FROM top_measures
    UNION ALL
    SELECT 'g', NULL, 0, NULL, NULL, 0, ${out(MEASURES)}
      FROM (SELECT ${minus(MEASURES)} FROM total a, (SELECT ${sums("", MEASURES)} FROM top_measures) t) other
     WHERE (SELECT groups FROM total) > ${limit}
    UNION ALL
    SELECT 'b', ${label("b")}, slot, NULL, NULL, 0, ${out(BUCKET_MEASURES)} FROM top_buckets
    UNION ALL
    SELECT 'b', ${label("b")}, 0, NULL, NULL, 0, ${out(BUCKET_MEASURES)}
      FROM (SELECT a.b, ${minus(BUCKET_MEASURES)}
              FROM (SELECT b, ${sums("", BUCKET_MEASURES)} FROM keyed WHERE b IS NOT NULL GROUP BY b) a
              LEFT JOIN (SELECT b, ${sums("", BUCKET_MEASURES)} FROM top_buckets GROUP BY b) t ON t.b = a.b) other
     WHERE (SELECT groups FROM total) > ${limit}
    UNION ALL
    SELECT 's', ${label("s.b")}, 0, to_char(s.b, 'YYYY-MM-DD"T"HH24:MI:SS'), NULL, 0, ${out([])}
      FROM (${series}) s`,
    { workMem: "64MB" },
  );

  const totalRow = result.find((r) => r.part === "t");
  const seriesRows = result.filter((r) => r.part === "s").sort((a, b) => (a.b! < b.b! ? -1 : 1));
  const perBucket = new Map<string, ResultRow>();
  for (const r of result) if (r.part === "b") perBucket.set(`${r.slot}|${r.b}`, r);
  const groupRows = result.filter((r) => r.part === "g").sort((a, b) => (a.slot === 0 ? 1 : b.slot === 0 ? -1 : a.slot - b.slot));
  const labels = await labelsOf(db, groupBy, groupRows);

  return {
    start_date: w.startDate.toISOString(),
    end_date: w.endDate.toISOString(),
    tz: w.tz,
    group_by: groupBy,
    bucket,
    limit,
    group_count: totalRow?.groups ?? 0,
    totals: measuresOf(totalRow),
    groups: groupRows.map((r) => {
      const keys = [r.k1, r.k2];
      const other = r.slot === 0;
      return {
        key: Object.fromEntries(groupBy.map((d, i) => [d, other ? null : keys[i]])),
        label: Object.fromEntries(groupBy.map((d, i) => [d, other ? null : (labels[d].get(keys[i] ?? "") ?? keys[i])])),
        other,
        ...measuresOf(r),
        ...(bucket && {
          buckets: seriesRows.map((s) => {
            const v = perBucket.get(`${r.slot}|${s.b}`);
            return { bucket_start: s.b!, calls: v?.calls ?? 0, settled_credits: creditsToNumber(v?.settled ?? "0"), refunded_credits: creditsToNumber(v?.refunded ?? "0") };
          }),
        }),
      };
    }),
    buckets: bucket ? seriesRows.map((s) => ({ bucket_start: s.b!, bucket_start_local: s.k1! })) : null,
  };
}

interface ResultRow {
  part: "t" | "g" | "b" | "s";
  b: string | null;
  slot: number;
  k1: string | null;
  k2: string | null;
  groups: number;
  calls: number;
  charged: number;
  included: number;
  fnc: number;
  fcr: number;
  pre: string;
  settled: string;
  refunded: string;
}

function measuresOf(r: ResultRow | undefined): Measures {
  return {
    calls: r?.calls ?? 0,
    charged_calls: (r?.charged ?? 0) + (r?.fcr ?? 0),
    charge_outcome_counts: { charged: r?.charged ?? 0, included: r?.included ?? 0, failed_not_charged: r?.fnc ?? 0, failed_charged_review: r?.fcr ?? 0 },
    pre_settlement_credits: creditsToNumber(r?.pre ?? "0"),
    settled_credits: creditsToNumber(r?.settled ?? "0"),
    refunded_credits: creditsToNumber(r?.refunded ?? "0"),
  };
}

/**
 * The rows to group (columns: b, KEY_COLUMNS, MEASURES, BUCKET_MEASURES) and the CTEs they use:
 * spend rollup rows for the sealed whole UTC days when one dimension answers the request, events
 * for the rest of the window, and refund rows. When a bucket boundary falls inside a day (hour
 * buckets, or a time zone other than UTC), a rollup row counts in the window's measures once and
 * its hours are shared among the buckets by its running sums; an hour a boundary cuts in two (a
 * zone at +05:30) is taken from its events for the buckets.
 */
async function spendParts(
  db: Db,
  accountId: string,
  w: BoundedWindow,
  bucket: BreakdownBucket | null,
  groupBy: BreakdownDimension[],
  f: BreakdownFilters,
  bucketKey: (col: SQL) => SQL,
): Promise<{ ctes: SQL[]; parts: SQL; totalParts?: SQL }> {
  // A part's key columns, each the column `pick` names or NULL.
  const keyColumns = (pick: (c: KeyColumn) => string | null) =>
    sql.raw(KEY_COLUMNS.map((c) => `${pick(c) ?? "NULL"}::${c === "api_key_id" ? "uuid" : "text"} AS ${c}`).join(", "));
  // The key columns the grouping reads (a provider's: the tool), the others NULL.
  const used = new Set(groupBy.map((d) => COLUMN_OF[DIM[d]]));
  const keysOf = (t: string) => keyColumns((c) => (used.has(c) ? `${t}.${c}` : null));
  const groupKeys = sql.raw(["1", ...KEY_COLUMNS.filter((c) => used.has(c)).map((c) => `e.${c}`)].join(", "));
  // Events summed per bucket and key: their measures in the window's (false: only in their
  // bucket's, for a cut hour) and in their bucket's.
  const eventMeasures = (window: boolean) =>
    window
      ? sql`count(*), ${outcomeCounts((o) => `count(*) FILTER (WHERE e.charge_outcome = '${o}')`)}, sum(e.pre_settlement_amount_credits),
            sum(e.settled_amount_credits), 0::numeric, count(*), sum(e.settled_amount_credits), 0::numeric`
      : sql`0, 0, 0, 0, 0, 0::numeric, 0::numeric, 0::numeric, count(*), sum(e.settled_amount_credits), 0::numeric`;
  const eventsIn = (range: SQL) => sql`
    SELECT ${bucketKey(sql.raw("e.created_at"))} AS b, ${keysOf("e")}, ${eventMeasures(true)}
      FROM usage_events e
     WHERE e.account_id = ${accountId} AND ${range} AND ${and(spendConditions(f, "e"))}
     GROUP BY ${groupKeys}`;
  // Refunds count when they were made, in the refunded Call's groups (its event's dimensions).
  const refunds = sql`
    SELECT ${bucketKey(sql.raw("l.created_at"))} AS b, ${keysOf("e")}, 0, 0, 0, 0, 0, 0::numeric, 0::numeric, l.amount_credits, 0, 0::numeric, l.amount_credits
      FROM credits_ledger l
      JOIN usage_events e ON e.execution_id = l.execution_id AND e.account_id = l.account_id AND e.event_type = 'tool_execute'
     WHERE l.account_id = ${accountId} AND l.entry_type = 'refund_tool_execute' AND ${inWindow(sql.raw("l.created_at"), w.start, w.end)}
       AND ${and(spendConditions(f, "e"))}`;
  const col = sql.raw("e.created_at");

  const dim = spendDimOf(groupBy.map((d) => DIM[d]), f);
  if (dim) await ensureSealed(db, accountId, w);
  const days = dim ? spendDays(w) : null;
  if (!dim || !days) return { ctes: [], parts: sql`${eventsIn(inWindow(col, w.start, w.end))} UNION ALL ${refunds}` };

  const lo = days.lo ?? w.startDate;
  const hi = days.hi;
  const rest = eventsIn(sql`(${inWindow(col, w.start, lo)} OR ${inWindow(col, hi, w.end)})`);
  const keys = keyColumns((c) => (c === COLUMN_OF[dim] ? "r.value" : null));
  const totals = sql.raw(
    "r.event_count, r.charged_count, r.included_count, r.failed_not_charged_count, r.failed_charged_review_count, r.pre_settlement_credits, r.settled_credits, 0::numeric",
  );
  const dayRows = and([...spendDimConditions(accountId, dim, f), inWindow(sql.raw("r.day_start"), lo, hi)]);
  // Without a filter every dimension's rows count each event once: the window's totals come from
  // the dimension with the fewest values a day (channel: one or two rows) instead of every run's row.
  const unfiltered = Object.values(f).every((v) => v === undefined);
  const totalParts = unfiltered
    ? sql.join(
        [
          sql`SELECT NULL::timestamp, ${keyColumns(() => null)}, ${totals}, 0, 0::numeric, 0::numeric
                FROM usage_spend_day r WHERE ${and([...spendDimConditions(accountId, "channel", {}), inWindow(sql.raw("r.day_start"), lo, hi)])}`,
          rest,
          refunds,
        ],
        sql` UNION ALL `,
      )
    : undefined;
  const day = sql.raw("r.day_start");
  // A day lies in one bucket: whole UTC days in day, week or month buckets in UTC, or no buckets.
  if (bucket === null || (w.tz === "UTC" && bucket !== "hour")) {
    const rollup = sql`
      SELECT ${bucketKey(day)} AS b, ${keys}, ${totals}, r.event_count, r.settled_credits, 0::numeric FROM usage_spend_day r WHERE ${dayRows}`;
    return { ctes: [], parts: sql.join([rollup, rest, refunds], sql` UNION ALL `), totalParts };
  }
  // Hours a bucket boundary cuts in two (zones whose offset is not a whole number of hours): their
  // events are read for the buckets; past MAX_CUT_HOURS (hour buckets in such a zone) the window is.
  const hourAt = (x: string) => bucketKey(sql.raw(x));
  const cut = rows<{ h: string }>(
    await db.execute(sql`
      SELECT to_char(x AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS h
        FROM generate_series(${lo.toISOString()}::timestamptz, ${hi.toISOString()}::timestamptz - interval '1 hour', interval '1 hour') x
       WHERE ${hourAt("x")} <> ${hourAt("(x + interval '1 hour' - interval '1 microsecond')")}`),
  ).map((r) => new Date(r.h));
  if (cut.length > MAX_CUT_HOURS) return { ctes: [], parts: sql`${eventsIn(inWindow(col, w.start, w.end))} UNION ALL ${refunds}` };
  // Runs of uncut hours of one day in one bucket: [h_from, h_to).
  const segments = sql`
    segments AS MATERIALIZED (
      SELECT day, b, min(hr) AS h_from, max(hr) + 1 AS h_to
        FROM (SELECT day, b, hr, hr - row_number() OVER (PARTITION BY day, b ORDER BY hr)::int AS island
                FROM (SELECT date_trunc('day', x, 'UTC') AS day, extract(hour FROM x AT TIME ZONE 'UTC')::int AS hr, ${hourAt("x")} AS b
                        FROM generate_series(${lo.toISOString()}::timestamptz, ${hi.toISOString()}::timestamptz - interval '1 hour', interval '1 hour') x
                       WHERE ${hourAt("x")} = ${hourAt("(x + interval '1 hour' - interval '1 microsecond')")}) hours) x
       GROUP BY day, b, island)`;
  const windowPart = sql`
    SELECT NULL::timestamp AS b, ${keys}, ${totals}, 0, 0::numeric, 0::numeric FROM usage_spend_day r WHERE ${dayRows}`;
  const bucketPart = sql`
    SELECT s.b, ${keys}, 0, 0, 0, 0, 0, 0::numeric, 0::numeric, 0::numeric,
           ${beforeHour("events", sql.raw("s.h_to"))} - ${beforeHour("events", sql.raw("s.h_from"))},
           ${beforeHour("settled", sql.raw("s.h_to"))} - ${beforeHour("settled", sql.raw("s.h_from"))}, 0::numeric
      FROM usage_spend_day r JOIN segments s ON s.day = r.day_start WHERE ${dayRows}`;
  const cutHours = cut.length
    ? [
        sql`
    SELECT ${bucketKey(col)} AS b, ${keysOf("e")}, ${eventMeasures(false)}
      FROM usage_events e
     WHERE e.account_id = ${accountId} AND (${sql.join(cut.map((h) => sql`(${inWindow(col, h, new Date(h.getTime() + HOUR))})`), sql` OR `)})
       AND ${and(spendConditions(f, "e"))}
     GROUP BY ${groupKeys}`,
      ]
    : [];
  return { ctes: [segments], parts: sql.join([windowPart, bucketPart, ...cutHours, rest, refunds], sql` UNION ALL `), totalParts };
}

/** Names of the keys shown: tools, providers, API keys and OAuth clients by id; the other dimensions are their own label. */
async function labelsOf(db: Db, groupBy: BreakdownDimension[], groups: ResultRow[]): Promise<Record<BreakdownDimension, Map<string, string>>> {
  const out = Object.fromEntries(breakdownDimensions.map((d) => [d, new Map<string, string>()])) as Record<BreakdownDimension, Map<string, string>>;
  const tables: Partial<Record<BreakdownDimension, SQL>> = {
    tool: sql`SELECT id, name FROM tools WHERE id IN`,
    provider: sql`SELECT id, name FROM providers WHERE id IN`,
    api_key: sql`SELECT id::text AS id, name || ' (' || prefix || '…)' AS name FROM api_keys WHERE id::text IN`,
    oauth_client: sql`SELECT id, name FROM oauth_clients WHERE id IN`,
  };
  await Promise.all(
    groupBy.map(async (d, i) => {
      const ids = [...new Set(groups.map((g) => (i === 0 ? g.k1 : g.k2)).filter((k): k is string => k !== null))];
      const select = tables[d];
      if (!select || ids.length === 0) return;
      const found = rows<{ id: string; name: string }>(await db.execute(sql`${select} (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`));
      for (const r of found) out[d].set(r.id, r.name);
    }),
  );
  return out;
}

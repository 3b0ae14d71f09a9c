import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { invalidInput } from "../errors";
import { creditsToNumber } from "../money";
import { analytic } from "./analytic";
import { type BoundedWindow, isBounded, rawRows, sealedHours, sealedPlan, type SealedPlan } from "./buckets";
import { ensureSealed } from "./seal";
import { type WindowRequest, inWindow, rawRemainder, resolveWindow, sealedSpan } from "./time-window";
import { type UsageFilters, and, attributionConditions, outcomeConditions } from "./usage-filters";

/**
 * Spend attribution (GET /auth/usage/breakdown): usage events and their credits grouped by who and
 * what spent them. Sealed hours come from the spend rollups (`usage_spend_daily` for whole UTC days
 * when the buckets allow, `usage_spend_hourly` otherwise), the partial and unsealed hours from the
 * events, and refunds from the ledger's refund rows (attributed to the refunded Call's event and
 * counted when they were made). Totals are the usage summary's and the ledger's for the same window.
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

const PART_COLUMNS = "charge_outcome, channel, tool_id, api_key_id, oauth_client_id, model, run_id";
const MAX_BUCKETS = 10_000;
const UNIT_MS: Record<BreakdownBucket, number> = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000, month: 28 * 86_400_000 };
const DAY = 86_400_000;

/** Conditions on the spend dimensions, over rows (alias `t`) of the spend rollup or the events. */
function spendConditions(f: BreakdownFilters, t: string): SQL[] {
  return [...outcomeConditions(f, t), ...(f.channel ? [sql`${sql.raw(`${t}.channel`)} = ${f.channel}`] : []), ...attributionConditions(f, t)];
}

/**
 * A usage filter on the spend rollup (alias `t`), or null when it names something the spend rollup
 * does not keep (reason codes, outcomes, amounts, ids, anomalies): then raw rows must answer it.
 */
export function spendRollupConditions(f: UsageFilters, t: string): SQL[] | null {
  const beyond =
    f.billableSuccess !== undefined || f.outcome !== undefined || f.reasonCode !== undefined || f.hasExecutionOutcome !== undefined ||
    f.anomaly !== undefined || f.searchId !== undefined || f.executionId !== undefined || f.minCredits !== undefined ||
    f.maxCredits !== undefined || f.within !== undefined;
  return beyond ? null : spendConditions(f, t);
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
  const parts = await spendParts(db, accountId, w, bucket, input.filters, bucketKey);
  const needsTool = groupBy.includes("provider");
  const k1 = sql.raw(KEY[groupBy[0]]);
  const k2 = groupBy[1] ? sql.raw(KEY[groupBy[1]]) : sql`NULL::text`;
  const measures = sql.raw(`sum(n) AS calls,
      sum(n) FILTER (WHERE charge_outcome = 'charged') AS charged, sum(n) FILTER (WHERE charge_outcome = 'included') AS included,
      sum(n) FILTER (WHERE charge_outcome = 'failed_not_charged') AS fnc, sum(n) FILTER (WHERE charge_outcome = 'failed_charged_review') AS fcr,
      sum(pre) AS pre, sum(settled) AS settled, sum(refunded) AS refunded`);
  const resumOf = (t: string) =>
    sql.raw(["calls", "charged", "included", "fnc", "fcr", "pre", "settled", "refunded"].map((m) => `sum(${t}${m}) AS ${m}`).join(", "));
  const resum = resumOf("");
  const out = sql.raw(`coalesce(calls, 0)::float8 AS calls, coalesce(charged, 0)::float8 AS charged, coalesce(included, 0)::float8 AS included,
      coalesce(fnc, 0)::float8 AS fnc, coalesce(fcr, 0)::float8 AS fcr, coalesce(pre, 0)::text AS pre, coalesce(settled, 0)::text AS settled,
      coalesce(refunded, 0)::text AS refunded`);
  const limit = input.limit;
  const series = bucket
    ? sql`SELECT generate_series(date_trunc(${sql.raw(`'${bucket}'`)}, ${w.start}::timestamptz AT TIME ZONE ${w.tz}),
                                 (${w.end}::timestamptz AT TIME ZONE ${w.tz}) - interval '1 microsecond', interval '1 ${sql.raw(bucket)}') AS b`
    : sql`SELECT NULL::timestamp AS b WHERE false`;

  const result = await analytic<ResultRow>(
    db,
    sql`
    WITH parts AS (${parts}),
    pb AS (
      SELECT p.b, ${k1} AS k1, ${k2} AS k2, ${measures}
        FROM parts p ${needsTool ? sql`LEFT JOIN tools t ON t.id = p.tool_id` : sql``}
       GROUP BY 1, 2, 3
    ), g AS (
      SELECT k1, k2, ${resum} FROM pb GROUP BY k1, k2
    ), ranked AS (
      SELECT g.*, row_number() OVER (ORDER BY settled DESC, calls DESC, k1 NULLS LAST, k2 NULLS LAST) AS rn FROM g
    )
    SELECT 't' AS part, NULL AS b, 0 AS slot, NULL AS k1, NULL AS k2, (SELECT count(*) FROM g)::float8 AS groups, ${out}
      FROM (SELECT ${resum} FROM g) tot
    UNION ALL
    SELECT 'g', NULL, slot, k1, k2, 0, ${out}
      FROM (SELECT CASE WHEN rn <= ${limit} THEN rn ELSE 0 END AS slot, min(k1) AS k1, min(k2) AS k2, ${resum}
              FROM ranked GROUP BY 1) grouped
    UNION ALL
    SELECT 'b', to_char((b AT TIME ZONE ${w.tz}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), slot, NULL, NULL, 0, ${out}
      FROM (SELECT pb.b, CASE WHEN r.rn <= ${limit} THEN r.rn ELSE 0 END AS slot, ${resumOf("pb.")}
              FROM pb JOIN ranked r ON r.k1 IS NOT DISTINCT FROM pb.k1 AND r.k2 IS NOT DISTINCT FROM pb.k2
             WHERE pb.b IS NOT NULL GROUP BY 1, 2) per_bucket
    UNION ALL
    SELECT 's', to_char((s.b AT TIME ZONE ${w.tz}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 0, to_char(s.b, 'YYYY-MM-DD"T"HH24:MI:SS'), NULL, 0,
           0::float8, 0::float8, 0::float8, 0::float8, 0::float8, '0', '0', '0'
      FROM (${series}) s`,
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
 * The rows to group (alias-free columns: b, event_type… as PART_COLUMNS, n, pre, settled,
 * refunded): sealed rollup rows, raw events for the rest of the window, and refund rows.
 */
async function spendParts(db: Db, accountId: string, w: BoundedWindow, bucket: BreakdownBucket | null, f: BreakdownFilters, bucketKey: (col: SQL) => SQL): Promise<SQL> {
  // Whole UTC days serve day, week and month buckets in UTC, and any window without buckets.
  const daysServe = bucket === null || (w.tz === "UTC" && bucket !== "hour");
  let plan: SealedPlan | null;
  if (daysServe) {
    await ensureSealed(db, accountId, w);
    const span = sealedSpan(w);
    plan = span ? { span: { lo: span.lo ?? w.startDate, hi: span.hi }, cut: [] } : null;
  } else {
    plan = await sealedPlan(db, accountId, w, bucket!);
  }
  const rollupWhere = and(spendConditions(f, "r"));
  const rollup = (table: "usage_spend_hourly" | "usage_spend_daily", at: string, where: SQL) =>
    sql`SELECT ${bucketKey(sql.raw(`r.${at}`))} AS b, ${sql.raw(PART_COLUMNS.split(", ").map((c) => `r.${c}`).join(", "))}, r.event_count AS n,
               r.pre_settlement_credits AS pre, r.settled_credits AS settled, 0::numeric AS refunded
          FROM ${sql.raw(table)} r WHERE r.account_id = ${accountId} AND ${where} AND ${rollupWhere}`;
  const sealedParts: SQL[] = [];
  if (plan) {
    if (daysServe) {
      const { lo, hi } = plan.span;
      const dayLo = new Date(Math.ceil(lo.getTime() / DAY) * DAY);
      const dayHi = new Date(Math.floor(hi.getTime() / DAY) * DAY);
      if (dayLo < dayHi) {
        sealedParts.push(rollup("usage_spend_daily", "day_start", inWindow(sql.raw("r.day_start"), dayLo, dayHi)));
        if (dayLo > lo) sealedParts.push(rollup("usage_spend_hourly", "hour_start", inWindow(sql.raw("r.hour_start"), lo, dayLo)));
        if (hi > dayHi) sealedParts.push(rollup("usage_spend_hourly", "hour_start", inWindow(sql.raw("r.hour_start"), dayHi, hi)));
      } else {
        sealedParts.push(rollup("usage_spend_hourly", "hour_start", inWindow(sql.raw("r.hour_start"), lo, hi)));
      }
    } else {
      sealedParts.push(rollup("usage_spend_hourly", "hour_start", sealedHours(plan)));
    }
  }
  const events = sql`
    SELECT ${bucketKey(sql.raw("e.created_at"))} AS b, ${sql.raw(PART_COLUMNS.split(", ").map((c) => `e.${c}`).join(", "))}, 1 AS n,
           e.pre_settlement_amount_credits AS pre, e.settled_amount_credits AS settled, 0::numeric AS refunded
      FROM usage_events e
     WHERE e.account_id = ${accountId} AND ${daysServe ? rawRemainder(sql.raw("e.created_at"), w, plan?.span ?? null) : rawRows(sql.raw("e.created_at"), w, plan)}
       AND ${and(spendConditions(f, "e"))}`;
  // Refunds count when they were made, in the refunded Call's groups (its event's dimensions).
  const refunds = sql`
    SELECT ${bucketKey(sql.raw("l.created_at"))} AS b, ${sql.raw(PART_COLUMNS.split(", ").map((c) => `e.${c}`).join(", "))}, 0 AS n,
           0::numeric AS pre, 0::numeric AS settled, l.amount_credits AS refunded
      FROM credits_ledger l
      JOIN usage_events e ON e.execution_id = l.execution_id AND e.account_id = l.account_id AND e.event_type = 'tool_execute'
     WHERE l.account_id = ${accountId} AND l.entry_type = 'refund_tool_execute' AND ${inWindow(sql.raw("l.created_at"), w.start, w.end)}
       AND ${and(spendConditions(f, "e"))}`;
  return sql.join([...sealedParts, events, refunds], sql` UNION ALL `);
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

// refreshToolStats: replaces the catalog's guessed `stats` of busy tools with what their Calls of
// the last 30 days measured. Every write to `tools` bumps the catalog version and makes every
// instance rebuild its search index, so a refresh is at most one UPDATE, and none when nothing
// changed enough to matter.
import { sql } from "drizzle-orm";
import { encodeTime } from "ulid";
import { rows } from "../db/row-sql";
import type { Db } from "../db/types";
import type { ReasonCode } from "../providers";

/** How a Call counts in its tool's statistics; null: it never reached the provider. */
const countsAs: Record<ReasonCode, "success" | "failure" | null> = {
  "result.valid": "success",
  "result.partial_success": "success",
  "result.empty": "failure",
  "provider.error": "failure",
  "provider.http_error": "failure",
  "provider.rate_limited": "failure",
  "provider.auth_or_permission": "failure",
  "transport.timeout": "failure",
  "transport.no_response": "failure",
  "transport.execution_failed": "failure",
  validation_error: null,
  tool_unavailable: null,
  "billing.insufficient_credits": null,
  "billing.delegation_cap": null,
  "billing.budget_exceeded": null,
  "delegation.scope_denied": null,
  oauth_signin_required: null,
  region_restricted: null,
};
const codes = (counts: (kind: "success" | "failure" | null) => boolean) =>
  Object.entries(countsAs)
    .filter(([, kind]) => counts(kind))
    .map(([code]) => code);
const SUCCESS_CODES = codes((kind) => kind === "success");
const COUNTED_CODES = codes((kind) => kind !== null);

const WINDOW_MS = 30 * 86_400_000;
/** Fewer counted Calls than this in the window: the catalog's figures stay. */
export const MIN_SAMPLE = 20;
/** Smaller moves are not worth a catalog rebuild on every instance. */
const RATE_STEP = 0.01;
const TIME_STEP_RATIO = 0.1;
const TIME_STEP_MIN_MS = 1;

const REFRESH_INTERVAL_MS = 10 * 60_000;
const FIRST_REFRESH_DELAY_MS = 30_000;
/** An instance skips its turn when any instance refreshed this recently (timers drift apart). */
const SHARED_MIN_INTERVAL_MS = REFRESH_INTERVAL_MS * 0.9;

export type RefreshOutcome = { status: "busy" | "not_due" | "unchanged" } | { status: "updated"; updatedTools: string[] };

interface Figures {
  tool_id: string;
  success_rate: string;
  avg_ms: string | null;
}

/**
 * One refresh, safe on every instance at once: claims the turn on `catalog_state` unless any
 * instance refreshed more recently than `minIntervalMs` (a short statement of its own, so catalog
 * writes are not held up by the aggregation), then, under a transaction try-lock (another instance
 * refreshing: skip), aggregates the window and updates the changed tools in one statement.
 */
export async function refreshToolStats(db: Db, { minIntervalMs = SHARED_MIN_INTERVAL_MS }: { minIntervalMs?: number } = {}): Promise<RefreshOutcome> {
  const claimed = await db.execute(sql`
    UPDATE catalog_state SET stats_refreshed_at = now()
     WHERE id = 1 AND (stats_refreshed_at IS NULL OR stats_refreshed_at <= now() - ${minIntervalMs / 1000} * interval '1 second')
    RETURNING id`);
  if (rows(claimed).length === 0) return { status: "not_due" };
  return db.transaction(async (tx) => {
    const locked = rows<{ ok: boolean }>(await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtextextended('tollgate.tool_stats', 0)) AS ok`))[0];
    if (!locked.ok) return { status: "busy" };
    // A large aggregation: JIT compilation would cost more than it saves (see lib/audit/analytic.ts).
    await tx.execute(sql`SET LOCAL jit = off`);
    const changed = rows<Figures>(await tx.execute(changedFiguresQuery(Date.now())));
    if (changed.length === 0) return { status: "unchanged" };
    // The single write: `as_of_support` (updated_at) moves with the reliability it vouches for.
    await tx.execute(sql`
      UPDATE tools t
         SET success_rate = f.success_rate, avg_execution_time_ms = coalesce(f.avg_ms, t.avg_execution_time_ms), updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(changed)}::jsonb) AS f(tool_id text, success_rate real, avg_ms real)
       WHERE t.id = f.tool_id`);
    return { status: "updated", updatedTools: changed.map((f) => f.tool_id).sort() };
  });
}

/**
 * Per tool with at least MIN_SAMPLE counted Calls in the window, the measured figures, when they
 * differ meaningfully from the stored ones. Execution ids are `exe_` + a lower-case ULID, so their
 * order is creation order: the window is a range of the primary key (executions has no index on
 * created_at), and the cost grows with the window's Calls, not with the table.
 * Cache hits replay an earlier outcome without reaching the provider and are not counted; a Call
 * released by the reservation sweeper counts as a failure but has no measured duration.
 */
export function changedFiguresQuery(now: number) {
  const firstId = `exe_${encodeTime(now - WINDOW_MS, 10).toLowerCase()}`;
  return sql`
    WITH measured AS (
      SELECT tool_id,
             round(count(*) FILTER (WHERE reason_code IN ${SUCCESS_CODES})::numeric / count(*), 3) AS success_rate,
             round(avg(duration_ms) FILTER (WHERE status = 'settled'), 1) AS avg_ms
        FROM executions
       WHERE id >= ${firstId} AND created_at >= ${new Date(now - WINDOW_MS).toISOString()}::timestamptz
         AND status IN ('settled', 'released') AND NOT cache_hit AND reason_code IN ${COUNTED_CODES}
       GROUP BY tool_id
      HAVING count(*) >= ${MIN_SAMPLE}
    )
    SELECT m.tool_id, m.success_rate::text, m.avg_ms::text
      FROM measured m JOIN tools t ON t.id = m.tool_id
     WHERE t.success_rate IS NULL
        OR abs(round(t.success_rate::numeric, 3) - m.success_rate) >= ${RATE_STEP}
        OR (m.avg_ms IS NOT NULL AND (t.avg_execution_time_ms IS NULL
            OR abs(t.avg_execution_time_ms::numeric - m.avg_ms) >= greatest(${TIME_STEP_RATIO} * t.avg_execution_time_ms::numeric, ${TIME_STEP_MIN_MS})))
     ORDER BY m.tool_id`;
}

/** Refreshes shortly after start, then every ten minutes; returns a function that stops it. */
export function startToolStatsRefresher(db: Db, onError?: (err: Error) => void): () => void {
  const run = () => {
    refreshToolStats(db).catch((err: Error) => onError?.(err));
  };
  const first = setTimeout(run, FIRST_REFRESH_DELAY_MS);
  const timer = setInterval(run, REFRESH_INTERVAL_MS);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}

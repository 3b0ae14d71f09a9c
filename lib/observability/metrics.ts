import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Pool } from "pg";
import type { ChargeOutcome } from "../db/schema";
import type { ReasonCode } from "../providers/types";
import type { RateLimitedAction } from "../http/rate-limits";
import type { CallPhase } from "../execution/call-phases";

/**
 * Tollgate's Prometheus metrics, in a registry of their own (never prom-client's global one),
 * beside the default process metrics. Documented in docs/observability.md.
 *
 * The recording functions sit on the request path: each looks up a `labels(...)` child created
 * once per label combination (every label set is bounded: route templates, status codes, closed
 * enumerations), so a request builds no label objects or children of its own.
 */

/** Seconds; a small API request answers in well under a millisecond. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; a Call's validation or shaping phase takes tens of microseconds. */
const PHASE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The label a request gets when no operation matched (unknown path or method, body refused before routing). */
export const UNMATCHED = "unmatched";

/** A Call phase as sent in `Server-Timing` (`request` is authentication and body parsing). */
export type CallPhaseLabel = CallPhase | "request";

/** The node-postgres pool figures read at each scrape. */
type PoolFigures = Pick<Pool, "totalCount" | "idleCount" | "waitingCount"> & { options: { max?: number } };

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  // Its `_count` series is the request count: a separate counter cost half as much again per request.
  const requestDuration = new Histogram({
    name: "tollgate_http_request_duration_seconds",
    help: "API requests by operation (route template, or `unmatched`) and HTTP status: time from reaching the API to the response headers.",
    labelNames: ["operation", "status"] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const calls = new Counter({
    name: "tollgate_calls_total",
    help: "Calls settled or refused with an execution record, by reason code and charge outcome.",
    labelNames: ["reason_code", "charge_outcome"] as const,
    registers,
  });
  const callPhases = new Histogram({
    name: "tollgate_call_phase_duration_seconds",
    help: "Duration of each phase of a Call (the Server-Timing phases).",
    labelNames: ["phase"] as const,
    buckets: PHASE_BUCKETS,
    registers,
  });
  const creditsReserved = new Counter({
    name: "tollgate_call_credits_reserved_total",
    help: "Credits held by Call reservations (an approximate float: observability, not accounting).",
    registers,
  });
  const creditsSettled = new Counter({
    name: "tollgate_call_credits_settled_total",
    help: "Credits charged by settled Calls (an approximate float: observability, not accounting).",
    registers,
  });
  const reservationsReleased = new Counter({
    name: "tollgate_reservations_released_total",
    help: "Expired Call reservations released by the sweeper (recorded as transport.execution_failed, not charged).",
    registers,
  });
  const webhookAttempts = new Counter({
    name: "tollgate_webhook_attempts_total",
    help: "Webhook delivery attempts by result: 2xx (delivered), http_error (another status), no_response (refused, unreachable, timed out, or not sent).",
    labelNames: ["result"] as const,
    registers,
  });
  const moneyStatements = new Counter({
    name: "tollgate_money_statements_total",
    help: "Jobs of the Call path's money statements (reserve, record, settle) by variant: lean (no budget, alert or token to apply), full, or fallback (a lean statement found a rule and left the job to the full one, counted again there).",
    labelNames: ["statement", "variant"] as const,
    registers,
  });
  const csvExports = new Counter({
    name: "tollgate_csv_exports_total",
    help: "CSV exports started, by export (usage, ledger) and method: copy (PostgreSQL writes the CSV, one connection held), keyset (batches; PGlite, or every COPY slot taken).",
    labelNames: ["export", "method"] as const,
    registers,
  });
  const rateLimitRejections = new Counter({
    name: "tollgate_rate_limit_rejections_total",
    help: "Requests refused by a rate limit (429), by rate-limited action.",
    labelNames: ["action"] as const,
    registers,
  });

  // Pools register themselves when opened; their figures are summed at each scrape.
  const pools = new Set<PoolFigures>();
  const poolGauge = (name: string, help: string, read: (p: PoolFigures) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        let sum = 0;
        for (const p of pools) sum += read(p);
        this.set(sum);
      },
    });
  poolGauge("tollgate_db_pool_connections", "PostgreSQL connections open in the pool (0 on the embedded database).", (p) => p.totalCount);
  poolGauge("tollgate_db_pool_idle_connections", "PostgreSQL connections open and idle in the pool.", (p) => p.idleCount);
  poolGauge("tollgate_db_pool_waiting_clients", "Queries waiting for a pooled connection (the pool is saturated when above 0).", (p) => p.waitingCount);
  poolGauge("tollgate_db_pool_max_connections", "Size limit of the pool.", (p) => p.options.max ?? 10);

  return {
    registry,
    pools,
    request: children2((operation: string, status: number) => requestDuration.labels(operation, String(status))),
    call: children2((reason: ReasonCode, charge: ChargeOutcome) => calls.labels(reason, charge)),
    phase: children1((phase: CallPhaseLabel) => callPhases.labels(phase)),
    rateLimited: children1((action: RateLimitedAction) => rateLimitRejections.labels(action)),
    moneyStatement: children2((statement: MoneyStatement, variant: MoneyStatementVariant) => moneyStatements.labels(statement, variant)),
    csvExport: children2((name: CsvExportName, method: CsvExportMethod) => csvExports.labels(name, method)),
    webhookAttempt: children1((result: WebhookAttemptResult) => webhookAttempts.labels(result)),
    creditsReserved,
    creditsSettled,
    reservationsReleased,
  };
}

/** `make(a)` once per distinct `a`. */
function children1<A, C>(make: (a: A) => C): (a: A) => C {
  const byA = new Map<A, C>();
  return (a) => {
    let child = byA.get(a);
    if (child === undefined) byA.set(a, (child = make(a)));
    return child;
  };
}

/** `make(a, b)` once per distinct pair. */
function children2<A, B, C>(make: (a: A, b: B) => C): (a: A, b: B) => C {
  const byA = new Map<A, Map<B, C>>();
  return (a, b) => {
    let byB = byA.get(a);
    if (byB === undefined) byA.set(a, (byB = new Map()));
    let child = byB.get(b);
    if (child === undefined) byB.set(b, (child = make(a, b)));
    return child;
  };
}

// Module state can exist twice in one process (the server bundle and Next's bundle): one set of
// metrics on globalThis, or a scrape would miss what the other copy counted.
const globalKey = Symbol.for("tollgate.metrics");
type GlobalWithMetrics = typeof globalThis & { [globalKey]?: ReturnType<typeof createMetrics> };

function metrics(): ReturnType<typeof createMetrics> {
  const g = globalThis as GlobalWithMetrics;
  return (g[globalKey] ??= createMetrics());
}

/** One API request answered: `operation` is the matched route template (`POST /tools/execute`), undefined when none matched. */
export function observeRequest(operation: string | undefined, status: number, seconds: number): void {
  metrics().request(operation ?? UNMATCHED, status).observe(seconds);
}

/** A Call that left an execution record, with its final reason code and charge outcome. */
export function countCall(reason: ReasonCode, charge: ChargeOutcome): void {
  metrics().call(reason, charge).inc();
}

/** Phases of one Call, in milliseconds as in `Server-Timing`. */
export function observeCallPhases(timings: Partial<Record<CallPhaseLabel, number>>): void {
  const m = metrics();
  let phase: CallPhaseLabel;
  for (phase in timings) {
    const ms = timings[phase];
    if (ms !== undefined) m.phase(phase).observe(ms / 1000);
  }
}

export function countCreditsReserved(credits: number): void {
  if (credits > 0) metrics().creditsReserved.inc(credits);
}

export function countCreditsSettled(credits: number): void {
  if (credits > 0) metrics().creditsSettled.inc(credits);
}

export function countReservationsReleased(count: number): void {
  if (count > 0) metrics().reservationsReleased.inc(count);
}

export type WebhookAttemptResult = "2xx" | "http_error" | "no_response";

/** One webhook delivery attempt, by what the receiver answered. */
export function countWebhookAttempt(statusCode: number | null): void {
  metrics().webhookAttempt(statusCode === null ? "no_response" : statusCode >= 200 && statusCode < 300 ? "2xx" : "http_error").inc();
}

export type MoneyStatement = "reserve" | "record" | "settle";
export type MoneyStatementVariant = "lean" | "full" | "fallback";

/** One job of a Call's money statement, by the variant that ran it (see lib/execution/settle.ts). */
export function countMoneyStatement(statement: MoneyStatement, variant: MoneyStatementVariant): void {
  metrics().moneyStatement(statement, variant).inc();
}

export type CsvExportName = "usage" | "ledger";
export type CsvExportMethod = "copy" | "keyset";

/** A CSV export started, by the method that writes it (lib/audit/exports.ts). */
export function countCsvExport(name: CsvExportName, method: CsvExportMethod): void {
  metrics().csvExport(name, method).inc();
}

export function countRateLimitRejection(action: RateLimitedAction): void {
  metrics().rateLimited(action).inc();
}

/** Reports a node-postgres pool in the `tollgate_db_pool_*` gauges until the returned function is called. */
export function trackPool(pool: PoolFigures): () => void {
  const { pools } = metrics();
  pools.add(pool);
  return () => {
    pools.delete(pool);
  };
}

/** The exposition text of every metric (Prometheus text format 0.0.4) and its content type. */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  const { registry } = metrics();
  return { contentType: registry.contentType, body: await registry.metrics() };
}

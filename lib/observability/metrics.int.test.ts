import crypto from "node:crypto";
import http, { type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiApp } from "../api/app";
import { sweepExpiredReservations } from "../billing/sweep-reservations";
import type { Database } from "../db/types";
import { reserveCall } from "../execution/settle";
import { newId } from "../ids";
import { createRequestHandler } from "../server/request-handler";
import { importDemoCatalog } from "../testing/catalog";
import { createTestDatabase, testDbKind } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { startTestServer, type TestServer } from "../testing/server";
import { startMetricsServer, type MetricsServer } from "./metrics-endpoint";

const TOKEN = "metrics-token-for-tests-0123456789";
const PRICED_TOOL = "builtin.finance.compound_interest";

let database: Database;
let api: TestServer;
let metricsPort: MetricsServer;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  api = await startTestServer(database);
  metricsPort = await startMetricsServer({ port: 0, host: "127.0.0.1" });
});
afterAll(() => metricsPort.close());

/** A public port as lib/server/main.ts builds it, with a stand-in for Next that answers every page 404. */
async function startPublicPort(metricsToken: string | undefined): Promise<string> {
  const handler: RequestListener = createRequestHandler({
    api: getRequestListener(createApiApp({ database }).fetch),
    next: (_req, res) => res.writeHead(404, { "Content-Type": "text/html" }).end("<h1>404 from Next</h1>"),
    metricsToken,
  });
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
// prom-client writes NaN as `Nan`: Prometheus parses special values case-insensitively (Go's ParseFloat).
const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?(?:[0-9.]+(?:e[+-]?[0-9]+)?)|[+-]?inf|nan)$/i;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;

/**
 * Parses Prometheus text exposition (format 0.0.4) strictly: every line is a HELP, a TYPE or a
 * sample of a family declared before it; anything else fails the test.
 */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      expect(name).toMatch(METRIC_NAME);
      if (kind === "HELP") helps.add(name);
      else {
        expect(["counter", "gauge", "histogram", "summary", "untyped"]).toContain(rest);
        expect(types.has(name), `TYPE of ${name} declared twice`).toBe(false);
        types.set(name, rest);
      }
      continue;
    }
    const match = SAMPLE_LINE.exec(line);
    if (!match) throw new Error(`Not a Prometheus exposition line: ${line}`);
    const [, name, labelText = "", value] = match;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    let consumed = 0;
    for (let m = LABEL.exec(labelText); m; m = LABEL.exec(labelText)) {
      labels[m[1]] = m[2];
      consumed = LABEL.lastIndex;
    }
    if (consumed !== labelText.length) throw new Error(`Malformed labels in: ${line}`);
    const family = [name, name.replace(/_(bucket|sum|count)$/, "")].find((n) => types.has(n));
    if (!family) throw new Error(`Sample ${name} has no TYPE before it`);
    if (family !== name) expect(types.get(family)).toBe("histogram");
    expect(helps.has(family), `HELP of ${family}`).toBe(true);
    samples.push({ name, labels, value: Number(value) });
  }
  return { types, samples };
}

/** The value of the one sample with exactly these labels (0 when the series does not exist yet). */
function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = exposition.samples.filter((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted);
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.value ?? 0;
}

async function scrape(): Promise<Exposition> {
  const res = await fetch(metricsPort.url);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await res.text());
}

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${api.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

describe("/metrics", () => {
  it("counts requests by route template and status, Calls by reason code and charge outcome, credits, rate-limit rejections, Call phases and sweeper releases", async () => {
    const rich = await seedAccount(database.db, { credits: "100" });
    const broke = await seedAccount(database.db, { credits: "0" });
    const before = await scrape();

    expect((await post("/api/v1/search", { query: "compound interest" }, bearer(rich.apiKey))).status).toBe(200);
    expect((await post("/api/v1/search", { query: "compound interest" })).status).toBe(401);

    // With an Idempotency-Key a Call reserves before it executes, so every phase runs.
    const call = await post(
      "/api/v1/tools/execute",
      { tool_id: PRICED_TOOL, parameters: { principal: 100, annual_rate_percent: 5, years: 2 } },
      { ...bearer(rich.apiKey), "idempotency-key": crypto.randomUUID() },
    );
    expect(call.status).toBe(200);
    const called = (await call.json()) as { cost: number; execution_outcome: { reason_code: string; charge_outcome: string } };
    expect(called.execution_outcome).toMatchObject({ reason_code: "result.valid", charge_outcome: "charged" });
    expect(called.cost).toBeGreaterThan(0);
    expect(call.headers.get("server-timing")).toMatch(/^request;dur=.*reserve;dur=.*settle;dur=/);

    const refused = await post("/api/v1/tools/execute", { tool_id: PRICED_TOOL, parameters: { principal: 100, annual_rate_percent: 5, years: 2 } }, bearer(broke.apiKey));
    expect(refused.status).toBe(402);

    // A raw URL with an id is counted under its template; unknown paths under one `unmatched`.
    const eventId = crypto.randomUUID();
    expect((await fetch(`${api.url}/api/v1/auth/usage/history/v2/${eventId}`, { headers: bearer(rich.accessToken) })).status).toBe(404);
    expect((await fetch(`${api.url}/api/v1/results/exe_nothing_here`)).status).toBe(422);
    expect((await fetch(`${api.url}/api/v1/meta`)).status).toBe(200);
    expect((await fetch(`${api.url}/.well-known/jwks.json`)).status).toBe(200);
    expect((await fetch(`${api.url}/api/v1/no-such-operation/${eventId}`)).status).toBe(404);

    // Device authorization allows 30 requests a minute per client address: the 31st is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await fetch(`${api.url}/api/v1/oauth/device/authorize`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "client_id=no-such-client",
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 429)).toHaveLength(1);
    expect(statuses.at(-1)).toBe(429);

    const expired = newId("exe");
    const reservation = await reserveCall(
      database.db,
      { id: expired, accountId: rich.accountId, toolId: PRICED_TOOL, providerId: "tollgate-builtin", sessionId: expired, status: "reserved", parameters: {}, reservationExpiresAt: new Date(Date.now() - 60_000) },
      "2",
    );
    expect(reservation).toEqual({ reserved: true });
    const released = await sweepExpiredReservations(database.db);
    expect(released).toBeGreaterThanOrEqual(1);

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);

    // A histogram's `_count` is the request count.
    const requests = "tollgate_http_request_duration_seconds_count";
    expect(moved(requests, { operation: "POST /search", status: "200" })).toBe(1);
    expect(moved(requests, { operation: "POST /search", status: "401" })).toBe(1);
    expect(moved(requests, { operation: "POST /tools/execute", status: "200" })).toBe(1);
    expect(moved(requests, { operation: "POST /tools/execute", status: "402" })).toBe(1);
    expect(moved(requests, { operation: "GET /auth/usage/history/v2/{event_id}", status: "404" })).toBe(1);
    expect(moved(requests, { operation: "GET /results/{execution_id}", status: "422" })).toBe(1);
    expect(moved(requests, { operation: "GET /meta", status: "200" })).toBe(1);
    expect(moved(requests, { operation: "GET /.well-known/jwks.json", status: "200" })).toBe(1);
    expect(moved(requests, { operation: "unmatched", status: "404" })).toBe(1);
    expect(moved(requests, { operation: "POST /oauth/device/authorize", status: "429" })).toBe(1);
    const operations = new Set(after.samples.filter((s) => s.name === requests).map((s) => s.labels.operation));
    expect([...operations].filter((o) => o.includes(eventId) || o.includes("exe_nothing_here"))).toEqual([]);

    const duration = "tollgate_http_request_duration_seconds";
    expect(after.types.get(duration)).toBe("histogram");
    const executed = { operation: "POST /tools/execute", status: "200" };
    expect(moved(`${duration}_bucket`, { ...executed, le: "+Inf" })).toBe(1);
    expect(moved(`${duration}_sum`, executed)).toBeGreaterThan(0);

    expect(moved("tollgate_calls_total", { reason_code: "result.valid", charge_outcome: "charged" })).toBe(1);
    expect(moved("tollgate_calls_total", { reason_code: "billing.insufficient_credits", charge_outcome: "failed_not_charged" })).toBe(1);
    expect(moved("tollgate_call_credits_settled_total")).toBeCloseTo(called.cost, 6);
    expect(moved("tollgate_call_credits_reserved_total")).toBeGreaterThanOrEqual(called.cost);
    expect(moved("tollgate_rate_limit_rejections_total", { action: "device_authorize" })).toBe(1);
    expect(moved("tollgate_reservations_released_total")).toBe(released);

    expect(after.types.get("tollgate_call_phase_duration_seconds")).toBe("histogram");
    for (const phase of ["request", "validate", "reserve", "provider", "shape", "settle"]) {
      expect(moved("tollgate_call_phase_duration_seconds_count", { phase }), phase).toBe(1);
    }
  });

  it("declares every metric family with its type, the process metrics included, and reports the PostgreSQL pool", async () => {
    const exposition = await scrape();
    expect(Object.fromEntries([...exposition.types].filter(([name]) => name.startsWith("tollgate_")))).toEqual({
      tollgate_http_request_duration_seconds: "histogram",
      tollgate_calls_total: "counter",
      tollgate_call_phase_duration_seconds: "histogram",
      tollgate_call_credits_reserved_total: "counter",
      tollgate_call_credits_settled_total: "counter",
      tollgate_reservations_released_total: "counter",
      tollgate_money_statements_total: "counter",
      tollgate_csv_exports_total: "counter",
      tollgate_rate_limit_rejections_total: "counter",
      tollgate_db_pool_connections: "gauge",
      tollgate_db_pool_idle_connections: "gauge",
      tollgate_db_pool_waiting_clients: "gauge",
      tollgate_db_pool_max_connections: "gauge",
      tollgate_webhook_attempts_total: "counter",
    });
    // Every histogram series ends in a +Inf bucket equal to its count.
    const counts = exposition.samples.filter((s) => s.name.endsWith("_count") && exposition.types.get(s.name.slice(0, -6)) === "histogram");
    expect(counts.length).toBeGreaterThan(0);
    for (const { name, labels, value } of counts) {
      expect(valueOf(exposition, `${name.slice(0, -6)}_bucket`, { ...labels, le: "+Inf" }), `${name} ${JSON.stringify(labels)}`).toBe(value);
    }
    expect(exposition.types.get("process_cpu_user_seconds_total")).toBe("counter");
    expect(exposition.types.get("process_resident_memory_bytes")).toBe("gauge");
    expect(exposition.types.get("nodejs_eventloop_lag_seconds")).toBe("gauge");

    if (testDbKind() === "postgres") {
      // The test database's pool has 10 connections at most and holds some open after the queries above.
      expect(valueOf(exposition, "tollgate_db_pool_max_connections")).toBe(10);
      expect(valueOf(exposition, "tollgate_db_pool_connections")).toBeGreaterThanOrEqual(1);
      expect(valueOf(exposition, "tollgate_db_pool_idle_connections")).toBeLessThanOrEqual(valueOf(exposition, "tollgate_db_pool_connections"));
      expect(valueOf(exposition, "tollgate_db_pool_waiting_clients")).toBe(0);
    } else {
      expect(valueOf(exposition, "tollgate_db_pool_max_connections")).toBe(0);
    }
  });

  it("is not served on the public port without METRICS_TOKEN, and there only with the bearer token", async () => {
    // The API app itself never answers /metrics.
    expect((await fetch(`${api.url}/metrics`)).status).toBe(404);

    const open = await startPublicPort(undefined);
    const unset = await fetch(`${open}/metrics`, { headers: bearer(TOKEN) });
    expect(unset.status).toBe(404);
    expect(await unset.text()).not.toContain("tollgate_");
    expect((await fetch(`${open}/api/v1/meta`)).status).toBe(200);

    const guarded = await startPublicPort(TOKEN);
    const anonymous = await fetch(`${guarded}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await anonymous.text()).not.toContain("tollgate_");
    expect((await fetch(`${guarded}/metrics`, { headers: bearer(`${TOKEN}x`) })).status).toBe(401);
    expect((await fetch(`${guarded}/metrics`, { headers: { authorization: TOKEN } })).status).toBe(401);
    expect((await fetch(`${guarded}/metrics`, { method: "POST", headers: bearer(TOKEN) })).status).toBe(405);
    const scraped = await fetch(`${guarded}/metrics?x=1`, { headers: bearer(TOKEN) });
    expect(scraped.status).toBe(200);
    const exposition = parseExposition(await scraped.text());
    expect(exposition.types.get("tollgate_http_request_duration_seconds")).toBe("histogram");
    expect((await fetch(`${guarded}/api/v1/meta`)).status).toBe(200);
    expect((await fetch(`${guarded}/dashboard`)).status).toBe(404);
  });

  it("the METRICS_PORT listener serves /metrics and nothing else, and wants the token when one is set", async () => {
    expect((await fetch(metricsPort.url.replace(/\/metrics$/, "/api/v1/meta"))).status).toBe(404);
    const guarded = await startMetricsServer({ port: 0, host: "127.0.0.1", token: TOKEN });
    try {
      expect((await fetch(guarded.url)).status).toBe(401);
      const res = await fetch(guarded.url, { headers: bearer(TOKEN) });
      expect(res.status).toBe(200);
      expect(parseExposition(await res.text()).types.get("tollgate_calls_total")).toBe("counter");
    } finally {
      await guarded.close();
    }
  });
});

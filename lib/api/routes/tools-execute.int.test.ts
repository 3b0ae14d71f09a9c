import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog, importManifest } from "../../testing/catalog";
import { closedPort, fakeTool, fakeUpstreamManifest, startFakeUpstream, type FakeUpstream } from "../../testing/fake-upstream";
import { assertLedgerInvariants } from "../../testing/invariants";
import { appSecrets, creditBalances, creditsLedger, executions, storedResults, usageEvents } from "../../db/schema";
import { deleteExpiredResults } from "../../execution/result-store";
import { rows } from "../../db/row-sql";
import { sweepExpiredReservations } from "../../billing/sweep-reservations";
import { getUsageEvent } from "../../audit/usage-history";
import type { Database } from "../../db/types";

// Truncated results are written under DATA_DIR/results: keep them out of the working tree.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-exec-test-"));
process.env.DATA_DIR = dataDir;

let database: Database;
let server: TestServer;
let upstream: FakeUpstream;

const FAKE = "fake-upstream";
const GUARDED = "fake-guarded";
const GUARDED_NAME = "fake-guarded-name";
const DOWN = "fake-down";
const tool = (name: string) => fakeTool(FAKE, name);
const COMPOUND = "builtin.finance.compound_interest";
const PATIENT_SLOW = "fake-patient.slow";
const COMPOUND_PARAMS = { principal: 100, annual_rate_percent: 5, years: 2 };

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  upstream = await startFakeUpstream();
  await importManifest(database.db, fakeUpstreamManifest(upstream.url, { providerId: FAKE }));
  // The same upstream, but the providers are not allow-listed for private networks (SSRF guard).
  await importManifest(database.db, fakeUpstreamManifest(upstream.url, { providerId: GUARDED, allowPrivateNetwork: false }));
  await importManifest(database.db, fakeUpstreamManifest(upstream.url.replace("127.0.0.1", "localhost"), { providerId: GUARDED_NAME, allowPrivateNetwork: false }));
  await importManifest(database.db, fakeUpstreamManifest(`http://127.0.0.1:${await closedPort()}`, { providerId: DOWN }));
  await importManifest(database.db, {
    providers: [
      {
        id: "fake-patient",
        name: "Patient upstream",
        transport: "http",
        base_url: upstream.url,
        allow_private_network: true,
        tools: [
          {
            id: PATIENT_SLOW,
            name: "Slow answer",
            description: "Answers after ms milliseconds",
            params: [{ name: "ms", type: "integer", description: "delay" }],
            billing_rule: { unit: "call", amount_credits: 1 },
            timeout_ms: 10_000,
            execution: { method: "GET", path: "/slow", query: ["ms"] },
          },
        ],
      },
    ],
  });
  server = await startTestServer(database);
});

afterAll(async () => {
  await upstream?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface CallOptions {
  headers?: Record<string, string>;
  query?: string;
}

async function call(apiKey: string | null, body: unknown, options: CallOptions = {}) {
  const res = await fetch(`${server.url}/api/v1/tools/execute${options.query ?? ""}`, {
    method: "POST",
    headers: { ...(apiKey ? bearer(apiKey) : {}), "content-type": "application/json", ...options.headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const account = (credits = "10") => seedAccount(database.db, { credits });

async function eventsOf(executionId: string) {
  return database.db.select().from(usageEvents).where(eq(usageEvents.executionId, executionId));
}
async function ledgerOf(executionId: string) {
  return database.db.select().from(creditsLedger).where(eq(creditsLedger.executionId, executionId));
}
async function executionOf(executionId: string) {
  return (await database.db.select().from(executions).where(eq(executions.id, executionId)))[0];
}
async function balanceOf(accountId: string) {
  return (await database.db.select().from(creditBalances).where(eq(creditBalances.accountId, accountId)))[0];
}
async function ledgerCount(accountId: string) {
  return rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM credits_ledger WHERE account_id = ${accountId}`))[0].n;
}

/** The signed URL points at PUBLIC_URL; the test server listens elsewhere. */
const onTestServer = (url: string) => {
  const u = new URL(url);
  return `${server.url}${u.pathname}${u.search}`;
};

describe("Call: charging", () => {
  it("a successful priced call is charged, with its event and ledger row linked both ways", async () => {
    const a = await account("10");
    const { status, body } = await call(a.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS, search_id: "srch_test1", session_id: "sess-1", model: "gpt-test" });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      success: true,
      error_message: null,
      cost: 1,
      remaining_credits: 9,
      billing: { summary: "1 credit (per call)", list_amount_credits: 1 },
      execution_outcome: { outcome: "success", reason_code: "result.valid", charge_outcome: "charged", cache_hit: false },
    });
    expect(body.execution_id).toMatch(/^exe_[0-9a-z]{26}$/);
    expect(body.result.data).toBeTypeOf("object");
    expect(body.execution_time).toBeCloseTo(body.elapsed_time_ms / 1000, 5);
    // Seconds to the microsecond, without float noise (never 0.06309000000000001).
    expect(String(body.execution_time)).toMatch(/^\d+(\.\d{1,6})?$/);

    const [event] = await eventsOf(body.execution_id);
    const [ledger] = await ledgerOf(body.execution_id);
    expect(event).toMatchObject({
      eventType: "tool_execute",
      toolId: COMPOUND,
      sessionId: "sess-1",
      searchId: "srch_test1",
      model: "gpt-test",
      success: true,
      chargeOutcome: "charged",
      reasonCode: "result.valid",
      billingSnapshotStatus: "captured",
      billingRuleSnapshot: { unit: "call", amount_credits: 1 },
      cacheHit: false,
      creditsLedgerEntryId: ledger.id,
    });
    // The audit record as read (stored without the JSON keys that repeat a column: lib/audit/usage-compact.ts).
    expect(await getUsageEvent(database.db, a.accountId, event.id)).toMatchObject({
      pre_settlement_bill: { execution_id: body.execution_id, summary: "1 credit (per call)", list_amount_credits: 1 },
      settlement_result: { settled_amount_credits: 1, quote_exact: true },
      execution_outcome: { outcome: "success", reason_code: "result.valid", charge_outcome: "charged", cache_hit: false },
      request_payload: { tool_id: COMPOUND, search_id: "srch_test1", session_id: "sess-1", model: "gpt-test" },
    });
    for (const amount of [event.requestedAmountCredits, event.actualAmountCredits, event.settledAmountCredits, event.preSettlementAmountCredits]) {
      expect(Number(amount)).toBe(1);
    }
    expect(event.durationMs).toBeGreaterThanOrEqual(0);
    expect(event.durationMs).toBeLessThanOrEqual(Math.ceil(body.elapsed_time_ms) + 1);
    expect(ledger).toMatchObject({ entryType: "consume_tool_execute", executionId: body.execution_id, accountId: a.accountId, sourceRefType: "execution", sourceRefId: body.execution_id, usageEventId: event.id });
    expect(Number(ledger.amountCredits)).toBe(-1);
    expect(Number(ledger.balanceBefore)).toBe(10);
    expect(Number(ledger.balanceAfter)).toBe(9);

    const execution = await executionOf(body.execution_id);
    expect(execution).toMatchObject({ status: "settled", success: true, chargeOutcome: "charged", reasonCode: "result.valid", sessionId: "sess-1", searchId: "srch_test1", model: "gpt-test" });
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("session_id defaults to the execution id on the execution and its event", async () => {
    const a = await account();
    const { body } = await call(a.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS });
    expect((await executionOf(body.execution_id)).sessionId).toBe(body.execution_id);
    expect((await eventsOf(body.execution_id))[0].sessionId).toBe(body.execution_id);
  });

  it("a free tool is included: success, cost 0, no ledger row", async () => {
    const a = await account("3");
    const { status, body } = await call(a.apiKey, { parameters: { value: 100, from: "C", to: "F" } }, { query: "?tool_id=builtin.convert.temperature" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, cost: 0, remaining_credits: 3, billing: { list_amount_credits: 0 }, execution_outcome: { charge_outcome: "included" } });
    expect((await eventsOf(body.execution_id))[0]).toMatchObject({ chargeOutcome: "included", creditsLedgerEntryId: null });
    expect(await ledgerOf(body.execution_id)).toEqual([]);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a per-unit tool is charged for the units its parameters ask for", async () => {
    const a = await account("1");
    const { body } = await call(a.apiKey, { tool_id: "builtin.generate.uuid", parameters: { count: 3 } });
    expect(body).toMatchObject({ success: true, cost: 0.03, remaining_credits: 0.97 });
    expect(body.result.data).toBeTypeOf("object");
    await assertLedgerInvariants(database.db, a.accountId);
  });

  // Builtins used here avoid the regex tools: they run under a 250 ms vm watchdog that a heavily loaded test machine can trip.
  it("an empty builtin result is failed_not_charged with cost 0 and result.data {}", async () => {
    const a = await account("1");
    const { status, body } = await call(a.apiKey, { tool_id: "builtin.data.json_path", parameters: { json: { a: 1 }, path: "$.b" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: false, cost: 0, result: { data: {} }, billing: { list_amount_credits: 0 }, remaining_credits: 1 });
    expect(body.execution_outcome).toMatchObject({ reason_code: "result.empty", charge_outcome: "failed_not_charged" });
    expect(await ledgerOf(body.execution_id)).toEqual([]);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a partial upstream result is charged as result.partial_success", async () => {
    const a = await account("5");
    const { body } = await call(a.apiKey, { tool_id: tool("partial"), parameters: {} });
    expect(body).toMatchObject({ success: true, cost: 1, remaining_credits: 4, execution_outcome: { reason_code: "result.partial_success", charge_outcome: "charged" } });
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("an http tool reserves, then settles the reservation into the charge", async () => {
    const a = await account("2");
    const before = upstream.count("/ok");
    const { body } = await call(a.apiKey, { tool_id: tool("ok"), parameters: { city: "Paris" } });
    expect(body).toMatchObject({ success: true, cost: 1, remaining_credits: 1, result: { data: { city: "Paris", temperature_c: 21.5 } } });
    expect(upstream.count("/ok")).toBe(before + 1);
    expect(Number((await balanceOf(a.accountId)).reservedCredits)).toBe(0);
    expect((await executionOf(body.execution_id)).status).toBe("settled");
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("Server-Timing names each phase, and the provider phase holds the upstream's time", async () => {
    const a = await account("2");
    const { status, headers } = await call(a.apiKey, { tool_id: PATIENT_SLOW, parameters: { ms: 120 } });
    expect(status).toBe(200);
    const phases = Object.fromEntries([...(headers.get("server-timing") ?? "").matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [m[1], Number(m[2])]));
    expect(Object.keys(phases)).toEqual(["request", "validate", "reserve", "provider", "shape", "settle"]);
    expect(phases.provider).toBeGreaterThanOrEqual(115);
    expect(phases.settle).toBeLessThan(phases.provider);
    // A builtin tool reserves nothing: no reserve phase.
    const builtin = await call(a.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS });
    expect(builtin.headers.get("server-timing")).toMatch(/^request;dur=[\d.]+, validate;dur=[\d.]+, provider;dur=[\d.]+, shape;dur=[\d.]+, settle;dur=[\d.]+$/);
  });

  it("a per-result-item http tool reserves its maximum and is charged for what came back", async () => {
    const a = await account("2.5");
    const { body } = await call(a.apiKey, { tool_id: tool("items"), parameters: { n: 3 } });
    expect(body).toMatchObject({ success: true, cost: 0.75, remaining_credits: 1.75 });
    const [event] = await eventsOf(body.execution_id);
    expect(Number(event.requestedAmountCredits)).toBe(2.5);
    expect(Number(event.actualAmountCredits)).toBe(0.75);
    await assertLedgerInvariants(database.db, a.accountId);
  });
});

describe("Call: every upstream failure is classified and never charged", () => {
  const cases: { name: string; scenario: string; provider?: string; parameters?: Record<string, unknown>; reason: string; httpStatus?: number; message: RegExp }[] = [
    { name: "4xx", scenario: "bad_request", reason: "provider.http_error", httpStatus: 400, message: /HTTP 400/ },
    { name: "404", scenario: "not_found", reason: "provider.http_error", httpStatus: 404, message: /HTTP 404/ },
    { name: "5xx", scenario: "server_error", reason: "provider.http_error", httpStatus: 500, message: /HTTP 500.*upstream says 500/ },
    { name: "502", scenario: "bad_gateway", reason: "provider.http_error", httpStatus: 502, message: /HTTP 502/ },
    { name: "429", scenario: "rate_limited", reason: "provider.rate_limited", httpStatus: 429, message: /rate-limited/ },
    { name: "401", scenario: "unauthorized", reason: "provider.auth_or_permission", httpStatus: 401, message: /authentication or permission/ },
    { name: "403", scenario: "forbidden", reason: "provider.auth_or_permission", httpStatus: 403, message: /HTTP 403/ },
    { name: "timeout", scenario: "slow", parameters: { ms: 2000 }, reason: "transport.timeout", message: /within 150 ms/ },
    { name: "connection refused", scenario: "ok", provider: DOWN, reason: "transport.no_response", message: /ECONNREFUSED/ },
    { name: "garbage body", scenario: "garbage", reason: "transport.execution_failed", message: /not valid JSON/ },
    { name: "huge body (> 10 MB)", scenario: "huge", reason: "transport.execution_failed", message: /exceeds 10485760 bytes/ },
    { name: "50 MB body announced by Content-Length", scenario: "huge_declared", reason: "transport.execution_failed", message: /exceeds 10485760 bytes/ },
    { name: "connection reset mid-body", scenario: "reset", reason: "transport.no_response", message: /could not be obtained \(ECONNRESET\)/ },
    { name: "empty body", scenario: "empty", reason: "result.empty", message: /without data/ },
    { name: "empty object {}", scenario: "empty_object", reason: "result.empty", message: /without usable data/ },
  ];

  it.each(cases)("$name → $reason, failed_not_charged", async ({ scenario, provider, parameters, reason, httpStatus, message }) => {
    const a = await account("5");
    const { status, body } = await call(a.apiKey, { tool_id: fakeTool(provider ?? FAKE, scenario), parameters: parameters ?? { city: "Oslo" } });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ success: false, cost: 0, result: { data: {} }, billing: { list_amount_credits: 0 }, remaining_credits: 5 });
    expect(body.error_message).toMatch(message);
    expect(body.execution_outcome).toMatchObject({ reason_code: reason, charge_outcome: "failed_not_charged", cache_hit: false });
    if (httpStatus) expect(body.execution_outcome.http_status).toBe(httpStatus);
    const [event] = await eventsOf(body.execution_id);
    expect(event).toMatchObject({ reasonCode: reason, chargeOutcome: "failed_not_charged", success: false, creditsLedgerEntryId: null });
    expect(Number(event.actualAmountCredits)).toBe(0);
    expect(Number(event.requestedAmountCredits)).toBe(1);
    expect(await ledgerOf(body.execution_id)).toEqual([]);
    const balance = await balanceOf(a.accountId);
    expect(Number(balance.bonusCredits)).toBe(5);
    expect(Number(balance.reservedCredits)).toBe(0);
    await assertLedgerInvariants(database.db, a.accountId);
  });
});

describe("Call: SSRF guard", () => {
  it("refuses a provider that is not allow-listed when it points at 127.0.0.1", async () => {
    const a = await account("5");
    const before = upstream.count();
    const { body } = await call(a.apiKey, { tool_id: fakeTool(GUARDED, "ok"), parameters: { city: "Oslo" } });
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged" } });
    expect(body.error_message).toMatch(/non-public address 127\.0\.0\.1/);
    expect(upstream.count()).toBe(before);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("refuses a host name that resolves to a loopback address", async () => {
    const a = await account("5");
    const before = upstream.count();
    const { body } = await call(a.apiKey, { tool_id: fakeTool(GUARDED_NAME, "ok"), parameters: { city: "Oslo" } });
    expect(body.execution_outcome).toMatchObject({ reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged" });
    // The name is refused without saying what it resolved to: an account must not map our DNS.
    expect(body.error_message).toMatch(/does not resolve to a public address/);
    expect(body.error_message).not.toMatch(/127\.0\.0\.1|loopback/);
    expect(upstream.count()).toBe(before);
  });
});

describe("Call: contract errors", () => {
  it("401 without credentials is a PublicApiError with guidance, not a disguised Call", async () => {
    const variants: Record<string, string>[] = [{}, { authorization: "Bearer tg_unknownunknownunknownunknown" }, { authorization: "Basic abc" }];
    for (const headers of variants) {
      const res = await fetch(`${server.url}/api/v1/tools/execute`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ tool_id: COMPOUND, parameters: COMPOUND_PARAMS }) });
      const body = await res.json();
      expect(res.status).toBe(401);
      expect(body).toMatchObject({ status: "failure", status_code: 401, message: expect.any(String), data: { guidance: expect.stringContaining("Authorization: Bearer"), remaining_credits: null } });
      expect(body).not.toHaveProperty("success");
      expect(body).not.toHaveProperty("execution_id");
    }
  });

  it("402 when credits are short: a Call response with success=false and remaining_credits, nothing charged", async () => {
    const a = await account("0.5");
    for (const toolId of [COMPOUND, tool("ok")]) {
      const before = upstream.count();
      const { status, body } = await call(a.apiKey, { tool_id: toolId, parameters: toolId === COMPOUND ? COMPOUND_PARAMS : { city: "Rome" } });
      expect(status).toBe(402);
      expect(body).toMatchObject({ success: false, remaining_credits: 0.5, cost: 0, result: { data: {} } });
      expect(body.error_message).toMatch(/Insufficient credits/);
      const [event] = await eventsOf(body.execution_id);
      expect(event).toMatchObject({ chargeOutcome: "failed_not_charged", reasonCode: "billing.insufficient_credits" });
      // The reservation refused the http call before the provider was contacted.
      expect(upstream.count()).toBe(before);
    }
    expect(await ledgerCount(a.accountId)).toBe(1);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("422 with details[] {type, loc, msg, input} for invalid parameters, recorded as validation_error", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: tool("echo"), parameters: { units: "kelvin", extra: 1 } });
    expect(status).toBe(422);
    expect(body).toMatchObject({ success: false, cost: 0 });
    expect(body.error_message).toMatch(/Invalid parameters/);
    const byType = Object.fromEntries(body.details.map((d: { type: string }) => [d.type, d]));
    expect(byType.missing).toEqual({ type: "missing", loc: ["body", "parameters", "city"], msg: expect.stringContaining("city"), input: { units: "kelvin", extra: 1 } });
    expect(byType.value_error).toEqual({ type: "value_error", loc: ["body", "parameters", "units"], msg: expect.stringContaining("metric"), input: "kelvin" });
    expect(byType.extra_forbidden).toMatchObject({ loc: ["body", "parameters", "extra"], input: 1, msg: expect.stringContaining("another tool") });
    const [event] = await eventsOf(body.execution_id);
    expect(event).toMatchObject({ reasonCode: "validation_error", chargeOutcome: "failed_not_charged" });
    expect(upstream.requests.some((r) => r.path === "/echo" && r.query.city === undefined)).toBe(false);
  });

  it("422 for a wrongly typed parameter", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: COMPOUND, parameters: { ...COMPOUND_PARAMS, principal: "lots" } });
    expect(status).toBe(422);
    expect(body.details).toEqual([{ type: "value_error", loc: ["body", "parameters", "principal"], msg: expect.stringContaining("number"), input: "lots" }]);
  });

  it("422 for an invalid respond_with projection", async () => {
    const a = await account();
    for (const respond_with of ["fields:$.[", "fields:", "fields: , ", "everything"]) {
      const { status, body } = await call(a.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS, respond_with });
      expect(status, respond_with).toBe(422);
      expect(body.success).toBe(false);
      expect(body.details[0]).toMatchObject({ type: "respond_with_invalid", loc: ["body", "respond_with"], input: respond_with });
    }
    expect(await ledgerCount(a.accountId)).toBe(1);
  });

  it("422 for a body that fails request validation", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: COMPOUND, parameters: "not an object", max_response_size: 0 });
    expect(status).toBe(422);
    expect(body.success).toBe(false);
    expect(body.details.map((d: { loc: unknown[] }) => d.loc)).toEqual(expect.arrayContaining([["body", "parameters"], ["body", "max_response_size"]]));
  });

  it("a body that is not JSON is a client error (400 PublicApiError), never a 500", async () => {
    const a = await account();
    const res = await fetch(`${server.url}/api/v1/tools/execute?tool_id=${COMPOUND}`, { method: "POST", headers: { ...bearer(a.apiKey), "content-type": "application/json" }, body: "{not json" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: "failure", status_code: 400, message: "Request body is not valid JSON" });
  });

  it("a missing tool_id answers success=false saying where tool_id goes (HTTP 400), quickly", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { parameters: {} });
    expect(status).toBe(400);
    expect(body).toMatchObject({ success: false });
    expect(body.error_message).toMatch(/tool_id must be given as a query parameter .* or in the JSON body/);
    expect(body.execution_time).toBeLessThan(1);
  });

  it("a malformed tool_id and an unknown tool_id are distinct errors with guidance", async () => {
    const a = await account();
    const malformed = await call(a.apiKey, { tool_id: "../../etc/passwd", parameters: {} });
    expect(malformed.status).toBe(422);
    expect(malformed.body.error_message).toMatch(/Malformed tool_id.*exactly as Discover returned it/);
    expect(malformed.body.details[0]).toMatchObject({ type: "tool_id_malformed", loc: ["query", "tool_id"] });

    const unknown = await call(a.apiKey, { tool_id: "builtin.does.not_exist", parameters: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false });
    expect(unknown.body.error_message).toMatch(/Unknown tool_id.*run Discover again/);
    expect((await eventsOf(unknown.body.execution_id))[0]).toMatchObject({ reasonCode: "tool_unavailable", chargeOutcome: "failed_not_charged" });
  });

  it("a catalog-only tool (no upstream) answers tool_unavailable honestly, charging nothing", async () => {
    await importManifest(database.db, {
      providers: [
        {
          id: "catalog-only",
          name: "Described, not callable",
          transport: "none",
          tools: [{ id: "catalog-only.weather", name: "Weather", description: "Described only", params: [{ name: "city", type: "string", description: "A city" }], billing_rule: { unit: "call", amount_credits: 1 } }],
        },
      ],
    });
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: "catalog-only.weather", parameters: { city: "Oslo" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: false, cost: 0, result: { data: {} }, execution_outcome: { reason_code: "tool_unavailable", charge_outcome: "failed_not_charged" } });
    expect((await eventsOf(body.execution_id))[0]).toMatchObject({ reasonCode: "tool_unavailable", chargeOutcome: "failed_not_charged" });
    expect(await ledgerCount(a.accountId)).toBe(1);
  });

  it("a retired tool is unknown to Call (404 tool_unavailable)", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: "builtin.text.rot13", parameters: { text: "abc" } });
    expect(status).toBe(404);
    expect(body.error_message).toMatch(/stale or retired/);
    expect(await ledgerCount(a.accountId)).toBe(1);
  });
});

describe("Call: truncation and the signed result URL", () => {
  let full: unknown;
  let truncated: { message: string; truncated_content: string; full_content_file_url: string; content_schema: { type: string; properties: Record<string, unknown> } };
  let executionId: string;

  beforeAll(async () => {
    const a = await account();
    const unlimited = await call(a.apiKey, { tool_id: tool("big"), parameters: { n: 600 }, max_response_size: -1 });
    full = unlimited.body.result.data;
    const { status, body } = await call(a.apiKey, { tool_id: tool("big"), parameters: { n: 600 }, max_response_size: 1000 });
    expect(status).toBe(200);
    truncated = body.result;
    executionId = body.execution_id;
    expect(body).toMatchObject({ success: true, cost: 1 });
  });

  it("max_response_size -1 never truncates", () => {
    expect(Buffer.byteLength(JSON.stringify(full))).toBeGreaterThan(20_480);
    expect((full as { rows: unknown[] }).rows).toHaveLength(600);
  });

  it("replaces data with message, truncated_content, full_content_file_url and content_schema", () => {
    expect(Object.keys(truncated).sort()).toEqual(["content_schema", "full_content_file_url", "message", "truncated_content"]);
    expect(truncated.message).toMatch(/above max_response_size \(1000\)/);
    expect(Buffer.byteLength(truncated.truncated_content)).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(full).startsWith(truncated.truncated_content)).toBe(true);
    expect(truncated.content_schema).toMatchObject({ type: "object", properties: { rows: { type: "array" }, total: { type: "integer" } } });
    expect(truncated.full_content_file_url).toMatch(new RegExp(`/api/v1/results/${executionId}\\?expires=\\d+&sig=`));
  });

  it("the signed URL serves the full JSON", async () => {
    const res = await fetch(onTestServer(truncated.full_content_file_url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual(full);
  });

  it("a tampered signature is refused (403)", async () => {
    const url = new URL(onTestServer(truncated.full_content_file_url));
    const sig = url.searchParams.get("sig")!;
    url.searchParams.set("sig", `${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`);
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ status: "failure", status_code: 403, message: expect.stringMatching(/signature/) });
    // Moving the expiry without re-signing is tampering too.
    const later = new URL(onTestServer(truncated.full_content_file_url));
    later.searchParams.set("expires", String(Number(later.searchParams.get("expires")) + 3600));
    expect((await fetch(later)).status).toBe(403);
  });

  it("the content is in the database: another server on the same database serves the URL", async () => {
    const [row] = await database.db.select().from(storedResults).where(eq(storedResults.executionId, executionId));
    expect(JSON.parse(row.content)).toEqual(full);
    const other = await startTestServer(database);
    try {
      const url = new URL(truncated.full_content_file_url);
      const res = await fetch(`${other.url}${url.pathname}${url.search}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(full);
    } finally {
      await other.close();
    }
  });

  it("expired content is deleted by the sweeper's pass and then answers 404 to a valid signature", async () => {
    const a = await account();
    const { body } = await call(a.apiKey, { tool_id: tool("big"), parameters: { n: 50 }, max_response_size: 100 });
    const id = body.execution_id as string;
    await database.db.update(storedResults).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(storedResults.executionId, id));
    expect(await deleteExpiredResults(database.db)).toBeGreaterThanOrEqual(1);
    expect(await database.db.select().from(storedResults).where(eq(storedResults.executionId, id))).toEqual([]);
    // Content still in its URL's lifetime is kept.
    expect(await database.db.select({ id: storedResults.executionId }).from(storedResults).where(eq(storedResults.executionId, executionId))).toHaveLength(1);
    const res = await fetch(onTestServer(body.result.full_content_file_url));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: "failure", status_code: 404 });
  });

  it("an expired URL is refused (403) even with a valid signature", async () => {
    const [{ value: secret }] = await database.db.select({ value: appSecrets.value }).from(appSecrets).where(eq(appSecrets.name, "result_url_secret"));
    const expires = Math.floor(Date.now() / 1000) - 60;
    const sig = crypto.createHmac("sha256", secret).update(`${executionId}.${expires}`).digest("base64url");
    const res = await fetch(`${server.url}/api/v1/results/${executionId}?expires=${expires}&sig=${sig}`);
    expect(res.status).toBe(403);
    expect((await res.json()).message).toMatch(/expired/);
  });
});

describe("Call: respond_with", () => {
  it("full is the default and leaves the response unchanged", async () => {
    const a = await account();
    const plain = await call(a.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS });
    const full = await call(a.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS, respond_with: "full" });
    expect(full.body.result).toEqual(plain.body.result);
    expect(Object.keys(full.body).sort()).toEqual(Object.keys(plain.body).sort());
  });

  it("fields:<JSONPath,...> projects result.data to {expression: [values]}", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: tool("ok"), parameters: { city: "Lima" }, respond_with: "fields:$.city,$.items[*],$.missing" });
    expect(status).toBe(200);
    expect(body.result).toEqual({ data: { "$.city": ["Lima"], "$.items[*]": [1, 2, 3], "$.missing": [] } });
    expect(body.cost).toBe(1);
  });

  it("summary returns only the reduced top-level shape and a structural summary", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: tool("big"), parameters: { n: 50 }, respond_with: "summary" });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["cost", "elapsed_time_ms", "error_message", "execution_id", "execution_time", "remaining_credits", "result", "success"]);
    expect(body).not.toHaveProperty("billing");
    expect(body).not.toHaveProperty("execution_outcome");
    expect(Object.keys(body.result).sort()).toEqual(["content_schema", "full_content_file_url", "message", "respond_with", "summary"]);
    expect(body.result.respond_with).toBe("summary");
    expect(body.result.summary).toMatchObject({ type: "object", keys: ["rows", "total"], array_lengths: { rows: 50 }, scalars: { total: 50 } });
    const res = await fetch(onTestServer(body.result.full_content_file_url));
    expect(((await res.json()) as { rows: unknown[] }).rows).toHaveLength(50);
  });
});

describe("Call: idempotency", () => {
  it("a retried Call with the same Idempotency-Key returns the first execution and charges once", async () => {
    const a = await account("10");
    const req = { tool_id: COMPOUND, parameters: COMPOUND_PARAMS };
    const first = await call(a.apiKey, req, { headers: { "Idempotency-Key": "retry-1" } });
    const second = await call(a.apiKey, req, { headers: { "Idempotency-Key": "retry-1" } });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.execution_id).toBe(first.body.execution_id);
    expect(second.body).toEqual(first.body);
    expect(Number((await balanceOf(a.accountId)).bonusCredits)).toBe(9);
    expect(await ledgerCount(a.accountId)).toBe(2);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("the same key with another body is refused with 422 and changes nothing", async () => {
    const a = await account("10");
    await call(a.apiKey, { tool_id: tool("ok"), parameters: { city: "Kyiv" } }, { headers: { "Idempotency-Key": "retry-2" } });
    const before = upstream.count();
    const other = await call(a.apiKey, { tool_id: tool("ok"), parameters: { city: "Lviv" } }, { headers: { "Idempotency-Key": "retry-2" } });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ success: false, details: [{ type: "idempotency_key_reused", loc: ["header", "Idempotency-Key"] }] });
    expect(upstream.count()).toBe(before);
    expect(Number((await balanceOf(a.accountId)).bonusCredits)).toBe(9);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("a retried summary-mode Call gets the same reduced body, not the full one", async () => {
    const a = await account("10");
    const req = { tool_id: COMPOUND, parameters: COMPOUND_PARAMS, respond_with: "summary" };
    const first = await call(a.apiKey, req, { headers: { "Idempotency-Key": "summary-1" } });
    const second = await call(a.apiKey, req, { headers: { "Idempotency-Key": "summary-1" } });
    expect(first.body).not.toHaveProperty("billing");
    expect(first.body).not.toHaveProperty("execution_outcome");
    expect(second.body).toEqual(first.body);
    expect(await ledgerCount(a.accountId)).toBe(2);
  });

  it("keys are scoped to the account", async () => {
    const a = await account("10");
    const b = await account("10");
    const req = { tool_id: COMPOUND, parameters: COMPOUND_PARAMS };
    const fromA = await call(a.apiKey, req, { headers: { "Idempotency-Key": "shared-key" } });
    const fromB = await call(b.apiKey, req, { headers: { "Idempotency-Key": "shared-key" } });
    expect(fromB.body.execution_id).not.toBe(fromA.body.execution_id);
    expect(fromB.body.remaining_credits).toBe(9);
  });
});

describe("Call: a reservation released while the Call runs", () => {
  it("answers not charged, withholds the result, and leaves the sweeper's record as the only one", async () => {
    const a = await account("10");
    const pending = call(a.apiKey, { tool_id: PATIENT_SLOW, parameters: { ms: 1500 } });
    let id: string | undefined;
    for (let i = 0; i < 200 && !id; i++) {
      const held = await database.db
        .select({ id: executions.id })
        .from(executions)
        .where(and(eq(executions.accountId, a.accountId), eq(executions.status, "reserved")));
      id = held[0]?.id;
      if (!id) await new Promise((r) => setTimeout(r, 10));
    }
    expect(id).toBeDefined();
    // As if this process had hung past the reservation's expiry: another instance's sweeper releases it.
    await database.db.update(executions).set({ reservationExpiresAt: new Date(Date.now() - 1000) }).where(eq(executions.id, id!));
    expect(await sweepExpiredReservations(database.db)).toBe(1);

    const { status, body } = await pending;
    expect(status).toBe(200);
    expect(body).toMatchObject({
      execution_id: id,
      success: false,
      cost: 0,
      result: { data: {} },
      remaining_credits: 10,
      execution_outcome: { reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged" },
    });
    expect(await ledgerOf(id!)).toHaveLength(0);
    const events = await eventsOf(id!);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ chargeOutcome: "failed_not_charged", reasonCode: "transport.execution_failed" });
    expect(await balanceOf(a.accountId)).toMatchObject({ reservedCredits: "0.000000", bonusCredits: "10.000000" });
    await assertLedgerInvariants(database.db, a.accountId);
  });
});

describe("Call: provider cache", () => {
  it("serves a repeated cacheable call from cache and marks it; bypass reaches the upstream again", async () => {
    const a = await account("10");
    const req = { tool_id: tool("cached"), parameters: { city: "Cache-1" } };
    const hits = () => upstream.requests.filter((r) => r.path === "/ok" && r.query.city === "Cache-1").length;

    const first = await call(a.apiKey, req);
    expect(first.body.execution_outcome.cache_hit).toBe(false);
    expect(hits()).toBe(1);

    const second = await call(a.apiKey, req);
    expect(second.body).toMatchObject({ success: true, result: first.body.result, execution_outcome: { cache_hit: true, charge_outcome: "included" } });
    expect(hits()).toBe(1);
    const cached = (await eventsOf(second.body.execution_id))[0];
    expect(cached).toMatchObject({ cacheHit: true });
    expect((await getUsageEvent(database.db, cached.accountId, cached.id)).execution_outcome).toMatchObject({ cache_hit: true });
    expect((await executionOf(second.body.execution_id)).cacheHit).toBe(true);

    const bypass = await call(a.apiKey, req, { headers: { "X-Service-Cache-Mode": "bypass" } });
    expect(bypass.body.execution_outcome.cache_hit).toBe(false);
    expect(hits()).toBe(2);
    expect((await eventsOf(bypass.body.execution_id))[0].cacheHit).toBe(false);

    const explicitDefault = await call(a.apiKey, req, { headers: { "X-Service-Cache-Mode": "default" } });
    expect(explicitDefault.body.execution_outcome.cache_hit).toBe(true);
    expect(hits()).toBe(2);
  });

  it("a cache hit of a priced tool is billed like any successful call and recorded as served from cache", async () => {
    const a = await account("10");
    const req = { tool_id: tool("cached_priced"), parameters: { city: "Cache-2" } };
    await call(a.apiKey, req);
    const hit = await call(a.apiKey, req);
    expect(hit.body).toMatchObject({ success: true, cost: 1, remaining_credits: 8, execution_outcome: { cache_hit: true, charge_outcome: "charged" } });
    expect(hit.body.billing.summary).toMatch(/^Served from cache/);
    const [ledger] = await ledgerOf(hit.body.execution_id);
    expect(ledger.ledgerMetadata).toMatchObject({ cache_hit: true });
    expect(upstream.requests.filter((r) => r.query.city === "Cache-2")).toHaveLength(1);
    await assertLedgerInvariants(database.db, a.accountId);
  });

  it("failures are never cached", async () => {
    const a = await account("10");
    const req = { tool_id: tool("cached_error"), parameters: { city: "Cache-3" } };
    const first = await call(a.apiKey, req);
    const second = await call(a.apiKey, req);
    expect(second.body.execution_outcome).toMatchObject({ reason_code: "provider.http_error", cache_hit: false });
    expect(upstream.requests.filter((r) => r.query.city === "Cache-3")).toHaveLength(2);
    expect(first.body.cost + second.body.cost).toBe(0);
  });

  it("an unknown X-Service-Cache-Mode is a 422", async () => {
    const a = await account();
    const { status, body } = await call(a.apiKey, { tool_id: tool("cached"), parameters: { city: "x" } }, { headers: { "X-Service-Cache-Mode": "sometimes" } });
    expect(status).toBe(422);
    expect(body.details[0].loc).toEqual(["header", "x-service-cache-mode"]);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { recordUsageEvent } from "../../audit/usage-event";
import { grantAt, writePastEvents } from "../../audit/testing-history";
import { searches } from "../../db/schema";
import { rows } from "../../db/row-sql";
import { newId } from "../../ids";
import { credits } from "../../money";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
let support: Awaited<ReturnType<typeof seedAccount>>;
let searchId: string;
let charged: string;
let free: string;

const SESSION = "sess-lookup-1";

async function get(path: string, token: string = acct.accessToken) {
  const res = await fetch(`${server.url}/api/v1${path}`, { headers: bearer(token) });
  return { status: res.status, body: (await res.json()) as ReturnType<typeof JSON.parse> };
}

async function call(apiKey: string, toolId: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "Content-Type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters, ...extra }),
  });
  return ((await res.json()) as { execution_id: string }).execution_id;
}

/** A Discover and an Inspect, written as the search path writes them. */
async function discoverAndInspect(accountId: string, apiKeyId: string): Promise<string> {
  const id = newId("srch");
  await database.db.insert(searches).values({ id, accountId, apiKeyId, sessionId: SESSION, query: "compound interest", lang: "en", view: "full", resultIds: ["builtin.finance.compound_interest"] });
  await recordUsageEvent(database.db, { accountId, apiKeyId, eventType: "search", sourceRefType: "search", sourceRefId: id, sessionId: SESSION, searchId: id, success: true, settledAmount: "0" });
  await recordUsageEvent(database.db, {
    accountId,
    apiKeyId,
    eventType: "search_by_ids",
    sourceRefType: "search",
    sourceRefId: id,
    sessionId: SESSION,
    searchId: id,
    toolId: "builtin.finance.compound_interest",
    success: true,
    settledAmount: "0",
    displayTarget: "builtin.finance.compound_interest",
  });
  return id;
}

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  await importDemoCatalog(database.db);
  acct = await seedAccount(database.db, { credits: "10" });
  other = await seedAccount(database.db, { credits: "10" });
  support = await seedAccount(database.db, { role: "support" });
  searchId = await discoverAndInspect(acct.accountId, acct.apiKeyId);
  charged = await call(acct.apiKey, "builtin.finance.compound_interest", { principal: 100, annual_rate_percent: 5, years: 2 }, { search_id: searchId, session_id: SESSION });
  free = await call(acct.apiKey, "builtin.convert.temperature", { value: 100, from: "C", to: "F" }, { search_id: searchId, session_id: SESSION });
});

describe("reconciliation, walked by hand through the public endpoints", () => {
  it("execution -> usage event -> ledger row -> balance change agree", async () => {
    const before = (await get("/auth/credits")).body.data.total_credits;
    const exe = await call(acct.apiKey, "builtin.finance.compound_interest", { principal: 200, annual_rate_percent: 5, years: 2 });
    const after = (await get("/auth/credits")).body.data.total_credits;

    const events = (await get(`/auth/usage/history/v2?execution_id=${exe}`)).body.data.items;
    expect(events).toHaveLength(1);
    const event = events[0];
    expect(event).toMatchObject({ execution_id: exe, charge_outcome: "charged", reason_code: "result.valid", anomalies: [] });

    const ledger = (await get(`/auth/credits/ledger/${event.credits_ledger_entry_id}`)).body.data;
    expect(ledger).toMatchObject({ id: event.credits_ledger_entry_id, execution_id: exe, entry_type: "consume_tool_execute" });
    expect(credits(ledger.amount_credits).eq(credits(event.actual_amount_credits).neg())).toBe(true);
    const { total_available_credits: b0 } = ledger.balance_before;
    const { total_available_credits: b1 } = ledger.balance_after;
    expect(credits(b1).minus(b0).eq(ledger.amount_credits)).toBe(true);
    expect(b0).toBe(before);
    expect(b1).toBe(after);

    const trace = (await get(`/auth/lookup?id=${exe}`)).body.data;
    expect(trace.calls[0]).toMatchObject({
      execution_id: exe,
      usage_event: { id: event.id },
      ledger_entries: [{ id: ledger.id }],
      balance_changes: [{ ledger_entry_id: ledger.id, balance_before: b0, amount_credits: ledger.amount_credits, balance_after: b1, continuous: true }],
      reconciliation: { status: "reconciled", missing_links: [] },
    });
  });
});

describe("GET /auth/lookup", () => {
  it("resolves an execution_id to search -> inspect -> call -> event -> ledger row -> balance change", async () => {
    const { status, body } = await get(`/auth/lookup?id=${charged}`);
    expect(status).toBe(200);
    const d = body.data;
    expect(d).toMatchObject({ id: charged, resolved_as: "execution_id", account_id: acct.accountId, session_id: SESSION, truncated: false });
    expect(d.calls).toHaveLength(1);
    expect(d.calls[0]).toMatchObject({
      execution_id: charged,
      tool_id: "builtin.finance.compound_interest",
      search_id: searchId,
      execution: { status: "settled", success: true, charge_outcome: "charged", settled_credits: 1 },
      usage_event: { charge_outcome: "charged", actual_amount_credits: 1 },
      ledger_entries: [{ amount_credits: -1, execution_id: charged }],
      reconciliation: { status: "reconciled" },
    });
    expect(d.searches).toHaveLength(1);
    expect(d.searches[0]).toMatchObject({ search_id: searchId, query: "compound interest", result_count: 1, search_event: { event_type: "search" } });
    expect(d.searches[0].inspect_events).toHaveLength(1);
    expect(d.reconciliation).toMatchObject({ status: "reconciled", missing_links: [], problems: [] });
    const steps = d.timeline.map((s: { step: string }) => s.step);
    expect(steps.indexOf("search")).toBeLessThan(steps.indexOf("inspect"));
    expect(steps.indexOf("inspect")).toBeLessThan(steps.indexOf("call"));
    expect(steps.slice(steps.indexOf("call"))).toEqual(["call", "usage_event", "ledger_entry", "balance_change"]);
  });

  it("resolves a search_id to every Call made from it, and a session_id to the whole session", async () => {
    const bySearch = (await get(`/auth/lookup?id=${searchId}`)).body.data;
    expect(bySearch.resolved_as).toBe("search_id");
    expect(bySearch.calls.map((c: { execution_id: string }) => c.execution_id).sort()).toEqual([charged, free].sort());
    expect(bySearch.calls.find((c: { execution_id: string }) => c.execution_id === free).reconciliation).toEqual({ status: "not_charged", missing_links: [] });
    const bySession = (await get(`/auth/lookup?id=${SESSION}`)).body.data;
    expect(bySession.resolved_as).toBe("session_id");
    expect(bySession.calls).toHaveLength(2);
    expect(bySession.searches).toHaveLength(1);
  });

  it("resolves a usage event id and a ledger entry id to their Call", async () => {
    const event = (await get(`/auth/usage/history/v2?execution_id=${charged}`)).body.data.items[0];
    const byEvent = (await get(`/auth/lookup?id=${event.id}`)).body.data;
    expect(byEvent).toMatchObject({ resolved_as: "usage_event_id", calls: [{ execution_id: charged }] });
    const byLedger = (await get(`/auth/lookup?id=${event.credits_ledger_entry_id}`)).body.data;
    expect(byLedger).toMatchObject({ resolved_as: "ledger_entry_id", calls: [{ execution_id: charged, reconciliation: { status: "reconciled" } }] });
    const grant = (await get("/auth/credits/ledger?entry_type=grant_welcome_bonus")).body.data.items[0];
    const byGrant = (await get(`/auth/lookup?id=${grant.id}`)).body.data;
    expect(byGrant).toMatchObject({ resolved_as: "ledger_entry_id", calls: [], ledger_entries: [{ id: grant.id }] });
    expect(byGrant.timeline.map((s: { step: string }) => s.step)).toEqual(["ledger_entry", "balance_change"]);
  });

  it("names the missing link when a charge has no ledger row, and marks failed_charged_review for review", async () => {
    await grantAt(database.db, acct.accountId, new Date(), "5");
    const [lost, review] = await writePastEvents(database.db, acct.accountId, [
      { at: new Date(), amount: "2", skipLedger: true },
      { at: new Date(), amount: "1", success: false },
    ]);
    const d = (await get(`/auth/lookup?id=${lost.executionId}`)).body.data;
    expect(d.calls[0].reconciliation).toEqual({ status: "broken", missing_links: ["ledger_entry"] });
    expect(d.reconciliation).toMatchObject({ status: "broken", missing_links: ["ledger_entry"], problems: [{ ref_id: lost.executionId, link: "ledger_entry" }] });
    const r = (await get(`/auth/lookup?id=${review.executionId}`)).body.data;
    expect(r.calls[0].reconciliation).toEqual({ status: "review", missing_links: [] });
    expect(r.reconciliation.status).toBe("review");
  });

  it("answers 404 for an unknown id and for another account's ids", async () => {
    expect((await get("/auth/lookup?id=exe_nope")).status).toBe(404);
    const theirs = await call(other.apiKey, "builtin.finance.compound_interest", { principal: 1, annual_rate_percent: 1, years: 1 });
    expect((await get(`/auth/lookup?id=${theirs}`, other.accessToken)).status).toBe(200);
    expect((await get(`/auth/lookup?id=${theirs}`)).status).toBe(404);
    const theirLedger = (await get("/auth/credits/ledger?limit=1", other.accessToken)).body.data.items[0].id;
    expect((await get(`/auth/lookup?id=${theirLedger}`)).status).toBe(404);
    expect((await get("/auth/lookup")).status).toBe(422);
  });
});

describe("support access", () => {
  const logRows = async () =>
    rows<{ user_id: string; target_account_id: string; resource: string; query: Record<string, string> }>(
      await database.db.execute(sql`SELECT user_id, target_account_id, resource, query FROM support_access_log WHERE user_id = ${support.userId} ORDER BY created_at, id`),
    );

  it("a support user reads another account by account_id, and the read is logged", async () => {
    const list = await get(`/auth/usage/history/v2?account_id=${acct.accountId}`, support.accessToken);
    expect(list.status).toBe(200);
    expect(list.body.data.total).toBeGreaterThan(3);
    const ledger = await get(`/auth/credits/ledger?account_id=${acct.accountId}&limit=1`, support.accessToken);
    expect(ledger.body.data.items).toHaveLength(1);
    const log = await logRows();
    expect(log.slice(-2)).toEqual([
      { user_id: support.userId, target_account_id: acct.accountId, resource: "GET /auth/usage/history/v2", query: { account_id: acct.accountId } },
      { user_id: support.userId, target_account_id: acct.accountId, resource: "GET /auth/credits/ledger", query: { account_id: acct.accountId, limit: "1" } },
    ]);
  });

  it("a support user reads by execution_id, event id and lookup id without naming the account; each read is logged", async () => {
    const n0 = (await logRows()).length;
    const byExecution = (await get(`/auth/usage/history/v2?execution_id=${charged}`, support.accessToken)).body.data;
    expect(byExecution.items.map((i: { execution_id: string }) => i.execution_id)).toEqual([charged]);
    const eventId = byExecution.items[0].id;
    expect((await get(`/auth/usage/history/v2/${eventId}`, support.accessToken)).status).toBe(200);
    const trace = (await get(`/auth/lookup?id=${charged}`, support.accessToken)).body.data;
    expect(trace.account_id).toBe(acct.accountId);
    // Whose account it is, as support tells customers apart: its name and its owners' addresses.
    const [{ name }] = rows<{ name: string }>(await database.db.execute(sql`SELECT name FROM accounts WHERE id = ${acct.accountId}`));
    expect(trace).toMatchObject({ account_name: name, account_owners: [acct.email] });
    expect(name).not.toBe(acct.accountId);
    expect((await get(`/auth/usage/history/v2?search_id=${searchId}`, support.accessToken)).body.data.total).toBe(4);
    const log = (await logRows()).slice(n0);
    expect(log.map((l) => [l.resource, l.target_account_id])).toEqual([
      ["GET /auth/usage/history/v2", acct.accountId],
      ["GET /auth/usage/history/v2/:event_id", acct.accountId],
      ["GET /auth/lookup", acct.accountId],
      ["GET /auth/usage/history/v2", acct.accountId],
    ]);
    expect(log[1].query).toMatchObject({ event_id: eventId });
  });

  it("a support user reads a ledger entry by id without naming the account; the read is logged", async () => {
    const entry = (await get("/auth/credits/ledger?entry_type=consume_tool_execute&limit=1")).body.data.items[0];
    const n0 = (await logRows()).length;
    const read = await get(`/auth/credits/ledger/${entry.id}`, support.accessToken);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(entry);
    expect((await logRows()).slice(n0)).toEqual([
      { user_id: support.userId, target_account_id: acct.accountId, resource: "GET /auth/credits/ledger/:entry_id", query: { entry_id: entry.id } },
    ]);
  });

  it("support reads of both exports, readiness, settlement history and credits-spent each write one log row and return the target's data", async () => {
    const n0 = (await logRows()).length;
    const q = `account_id=${acct.accountId}`;
    const csv = async (path: string, token: string) => (await fetch(`${server.url}/api/v1${path}`, { headers: bearer(token) })).text();
    expect(await csv(`/auth/usage/history/v2/export?${q}`, support.accessToken)).toBe(await csv("/auth/usage/history/v2/export", acct.accessToken));
    expect(await csv(`/auth/credits/ledger/export?${q}`, support.accessToken)).toBe(await csv("/auth/credits/ledger/export", acct.accessToken));
    // `volatile` fields carry the time of the request, not the account's data.
    const same = async (path: string, volatile: string[] = []) => {
      const theirs = await get(`${path}${path.includes("?") ? "&" : "?"}${q}`, support.accessToken);
      expect(theirs.status, path).toBe(200);
      const mine = (await get(path)).body.data;
      expect(theirs.body.data, path).toEqual({ ...mine, ...Object.fromEntries(volatile.map((k) => [k, expect.any(String)])) });
    };
    await same("/auth/credits/ledger-readiness", ["end_date", "live_checked_until"]);
    await same("/auth/account/settlement-history");
    await same("/auth/usage/credits-spent");
    const log = (await logRows()).slice(n0);
    expect(log.map((l) => [l.resource, l.target_account_id])).toEqual([
      ["GET /auth/usage/history/v2/export", acct.accountId],
      ["GET /auth/credits/ledger/export", acct.accountId],
      ["GET /auth/credits/ledger-readiness", acct.accountId],
      ["GET /auth/account/settlement-history", acct.accountId],
      ["GET /auth/usage/credits-spent", acct.accountId],
    ]);
    expect(log.every((l) => l.user_id === support.userId && l.query.account_id === acct.accountId)).toBe(true);
  });

  it("a query rejected by validation reads nothing and leaves no log row; only what support was shown is logged", async () => {
    const n0 = (await logRows()).length;
    const q = `account_id=${acct.accountId}`;
    for (const path of [
      `/auth/usage/history/v2?${q}&start_date=yesterday`,
      `/auth/usage/history/v2?${q}&summary=true&bucket=month`,
      `/auth/usage/history/v2/summary?${q}&tz=Mars/Phobos`,
      `/auth/usage/history/v2/export?${q}&min_credits=-1`,
      `/auth/credits/ledger?${q}&direction=up`,
      `/auth/credits/ledger/export?${q}&start_date=2026-13-01`,
      `/auth/credits/ledger-readiness?${q}&start_date=2026-03-05&end_date=2026-03-01`,
      `/auth/account/settlement-history?${q}&cursor=zzz`,
      `/auth/usage/credits-spent?${q}&end_date=soon`,
    ]) {
      const { status, body } = await get(path, support.accessToken);
      expect(status, path).toBe(400);
      expect(body, path).toMatchObject({ status_code: -7, data: null });
    }
    expect((await get(`/auth/credits/ledger/led_nope?${q}`, support.accessToken)).status).toBe(404);
    expect((await logRows()).length).toBe(n0);
  });

  it("a support user's lookup finds the owner of an id wherever the lookup itself would: a session only on a Call in flight, a search only on events", async () => {
    // A Call in flight has no usage event yet: its reserved execution is the only row naming its session.
    const session = "sess-only-on-execution";
    const exe = newId("exe");
    await database.db.execute(sql`
      INSERT INTO executions (id, account_id, tool_id, session_id, status, reserved_credits, reservation_expires_at, created_at)
      VALUES (${exe}, ${acct.accountId}, 'builtin.convert.temperature', ${session}, 'reserved', 0, now() + interval '1 minute', now())`);
    const [event] = await writePastEvents(database.db, acct.accountId, [{ at: new Date(), eventType: "search", searchId: "srch_only_on_events", sessionId: null }]);
    const n0 = (await logRows()).length;

    const bySession = await get(`/auth/lookup?id=${session}`, support.accessToken);
    expect(bySession.status).toBe(200);
    expect(bySession.body.data).toMatchObject({ resolved_as: "session_id", account_id: acct.accountId, calls: [{ execution_id: exe, session_id: session }] });
    expect(bySession.body.data).toEqual((await get(`/auth/lookup?id=${session}`)).body.data);

    const bySearch = await get("/auth/lookup?id=srch_only_on_events", support.accessToken);
    expect(bySearch.status).toBe(200);
    expect(bySearch.body.data).toMatchObject({ resolved_as: "search_id", account_id: acct.accountId, searches: [{ search_id: "srch_only_on_events", search_event: { id: event.id } }] });

    expect((await logRows()).slice(n0)).toEqual([
      { user_id: support.userId, target_account_id: acct.accountId, resource: "GET /auth/lookup", query: { id: session } },
      { user_id: support.userId, target_account_id: acct.accountId, resource: "GET /auth/lookup", query: { id: "srch_only_on_events" } },
    ]);
  });

  it("reads of the support user's own account are not logged; an unknown account is 404", async () => {
    const n0 = (await logRows()).length;
    expect((await get("/auth/usage/history/v2", support.accessToken)).body.data.total).toBe(0);
    expect((await logRows()).length).toBe(n0);
    expect((await get("/auth/usage/history/v2?account_id=acc_nope", support.accessToken)).status).toBe(404);
  });

  it("other users cannot name another account (403) and are confined to their own", async () => {
    const denied = await get(`/auth/usage/history/v2?account_id=${acct.accountId}`, other.accessToken);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ status: "failure", status_code: 403 });
    expect((await get(`/auth/credits/ledger?account_id=${acct.accountId}`, other.accessToken)).status).toBe(403);
    expect((await get(`/auth/usage/history/v2?account_id=${other.accountId}`, other.accessToken)).status).toBe(200);
    expect((await get(`/auth/usage/history/v2?execution_id=${charged}`, other.accessToken)).body.data.total).toBe(0);
    const before = (await logRows()).length;
    expect(before).toBeGreaterThan(0);
    const all = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM support_access_log WHERE user_id <> ${support.userId}`))[0].n;
    expect(all).toBe(0);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { grantAt, writePastEvents, type WrittenEvent } from "../../audit/testing-history";
import { parseCsv } from "../../testing/csv";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
const calls: { executionId: string; status: number }[] = [];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function call(apiKey: string, toolId: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "Content-Type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters, ...extra }),
  });
  const body = await res.json();
  return { status: res.status, executionId: body.execution_id as string, body };
}

async function get(path: string, token: string = acct.accessToken) {
  const res = await fetch(`${server.url}/api/v1${path}`, { headers: bearer(token) });
  const text = await res.text();
  let body: ReturnType<typeof JSON.parse>;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

const COMPOUND = { principal: 100, annual_rate_percent: 5, years: 2 };
const TEMP = { value: 100, from: "C", to: "F" };

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  await importDemoCatalog(database.db);
  acct = await seedAccount(database.db, { credits: "100" });
  other = await seedAccount(database.db, { credits: "50" });
  for (let i = 0; i < 3; i++) calls.push(await call(acct.apiKey, "builtin.finance.compound_interest", COMPOUND, { session_id: "sess-audit-1" }));
  for (let i = 0; i < 2; i++) calls.push(await call(acct.apiKey, "builtin.convert.temperature", TEMP));
  calls.push(await call(acct.apiKey, "builtin.finance.compound_interest", { principal: "lots" }));
  await call(other.apiKey, "builtin.finance.compound_interest", COMPOUND);
});

describe("GET /auth/usage/history/v2: list", () => {
  it("returns the account's events newest first with the matching total and default paging", async () => {
    const { status, body } = await get("/auth/usage/history/v2");
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "success", status_code: 0, message: "success" });
    const data = body.data;
    expect(data.total).toBe(6);
    expect(data.page).toBe(1);
    expect(data.page_size).toBe(50);
    expect(data.summary).toBeNull();
    expect(data.items.map((i: { execution_id: string }) => i.execution_id)).toEqual(calls.map((c) => c.executionId).reverse());
    const times = data.items.map((i: { created_at: string }) => i.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(data.items[0]).not.toHaveProperty("request_payload");
  });

  it("returns the audit payloads only with include_details=true", async () => {
    const { body } = await get("/auth/usage/history/v2?include_details=true&limit=1");
    expect(body.data.items[0].request_payload).toMatchObject({ tool_id: "builtin.finance.compound_interest" });
    expect(body.data.items[0]).toHaveProperty("response_payload_summary");
  });

  it("reports amounts as JSON numbers and the charge outcome per contract section 3", async () => {
    const { body } = await get(`/auth/usage/history/v2?execution_id=${calls[0].executionId}`);
    expect(body.data.items).toHaveLength(1);
    const item = body.data.items[0];
    expect(item).toMatchObject({ charge_outcome: "charged", actual_amount_credits: 1, settled_amount_credits: 1, success: true, anomalies: [] });
    expect(item.credits_ledger_entry_id).toMatch(/^led_/);
  });

  const filterCases: [string, number][] = [
    ["event_type=tool_execute", 6],
    ["event_type=search", 0],
    ["kind=call", 6],
    ["kind=discover", 0],
    ["success=true", 5],
    ["success=false", 1],
    ["billable_success=0", 1],
    ["outcome=validation_error", 1],
    ["reason_code=validation_error", 1],
    ["reason_code=result.valid", 5],
    ["has_execution_outcome=true", 6],
    ["has_execution_outcome=false", 0],
    ["charge_outcome=charged", 3],
    ["charge_outcome=included", 2],
    ["charge_outcome=failed_not_charged", 1],
    ["anomaly=failed_charged_review", 0],
    ["anomaly=missing_ledger_link", 0],
    ["anomaly=missing_billing_snapshot", 0],
    ["search_id=srch_none", 0],
    ["min_credits=1", 3],
    ["min_credits=1.5", 0],
    ["max_credits=0", 3],
    ["min_credits=0&max_credits=1", 6],
  ];
  for (const [query, expected] of filterCases) {
    it(`filters ${query} -> ${expected}`, async () => {
      const { status, body } = await get(`/auth/usage/history/v2?${query}`);
      expect(status).toBe(200);
      expect(body.data.total).toBe(expected);
      expect(body.data.items).toHaveLength(expected);
    });
  }

  it("filters by api_key_id and execution_id", async () => {
    expect((await get(`/auth/usage/history/v2?api_key_id=${acct.apiKeyId}`)).body.data.total).toBe(6);
    expect((await get(`/auth/usage/history/v2?api_key_id=${other.apiKeyId}`)).body.data.total).toBe(0);
    expect((await get(`/auth/usage/history/v2?execution_id=${calls[3].executionId}`)).body.data.items[0].charge_outcome).toBe("included");
  });

  it("pages with page and page_size, and limit overrides page_size capped at 50", async () => {
    const p1 = (await get("/auth/usage/history/v2?page_size=4")).body.data;
    const p2 = (await get("/auth/usage/history/v2?page_size=4&page=2")).body.data;
    expect(p1.items).toHaveLength(4);
    expect(p2.items).toHaveLength(2);
    expect(p2.page).toBe(2);
    expect(new Set([...p1.items, ...p2.items].map((i: { id: string }) => i.id)).size).toBe(6);
    const limited = (await get("/auth/usage/history/v2?page_size=4&limit=2")).body.data;
    expect(limited.items).toHaveLength(2);
    expect(limited.page_size).toBe(2);
    expect((await get("/auth/usage/history/v2?limit=80")).body.data.page_size).toBe(50);
    expect((await get("/auth/usage/history/v2?page_size=50000")).status).toBe(200);
  });

  const validation = [
    "page=0",
    "page=abc",
    "page_size=0",
    "page_size=50001",
    "limit=0",
    "event_type=bogus",
    "kind=everything",
    "charge_outcome=maybe",
    "anomaly=odd",
    "success=maybe",
    "include_details=yes",
    "api_key_id=not-a-uuid",
  ];
  for (const query of validation) {
    it(`answers ${query} with 422 HTTPValidationError`, async () => {
      const { status, body } = await get(`/auth/usage/history/v2?${query}`);
      expect(status).toBe(422);
      expect(body.detail[0]).toMatchObject({ loc: expect.arrayContaining(["query"]), msg: expect.any(String) });
    });
  }

  const invalid: [string, RegExp][] = [
    ["start_date=2026-13-01", /Invalid start_date/],
    ["end_date=yesterday", /Invalid end_date/],
    ["start_date=2026-02-30", /Invalid start_date/],
    ["bucket=month&summary=true", /Invalid bucket/],
    ["min_credits=5&max_credits=1", /min_credits .* must not be greater than max_credits/],
    ["min_credits=-1", /Invalid min_credits.*greater than or equal to 0/],
    ["max_credits=-0.5", /Invalid max_credits/],
    ["tz=Mars/Phobos&summary=true", /Invalid tz/],
    ["start_date=2026-03-05&end_date=2026-03-01", /start_date must be earlier than end_date/],
    ["min_credits=abc", /Invalid min_credits: "abc"\. Credit bounds must be decimal numbers greater than or equal to 0/],
    ["max_credits=1e3", /Invalid max_credits: "1e3"/],
    ["min_credits=1&max_credits=Infinity", /Invalid max_credits/],
  ];
  for (const [query, message] of invalid) {
    it(`answers ${query} with the 400 -7 wrapper`, async () => {
      const { status, body } = await get(`/auth/usage/history/v2?${query}`);
      expect(status).toBe(400);
      expect(body).toMatchObject({ status: "failure", status_code: -7, data: null });
      expect(body.message).toMatch(message);
    });
  }
});

describe("usage summary", () => {
  let past: Awaited<ReturnType<typeof seedAccount>>;
  let written: WrittenEvent[];
  const base = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - 7 * DAY;

  beforeAll(async () => {
    past = await seedAccount(database.db);
    await grantAt(database.db, past.accountId, new Date(base - HOUR), "1000");
    written = await writePastEvents(database.db, past.accountId, [
      { at: new Date(base + 1 * HOUR + 5 * 60_000), amount: "2" },
      { at: new Date(base + 1 * HOUR + 30 * 60_000), amount: "5" },
      { at: new Date(base + 3 * HOUR), amount: "0" },
      { at: new Date(base + DAY + 23 * HOUR + 59 * 60_000), amount: "0", success: false, reasonCode: "provider.http_error" },
      { at: new Date(base + 2 * DAY + 10 * HOUR), amount: "1.5", eventType: "model_call" },
      { at: new Date(base + 3 * DAY + 4 * HOUR), amount: "0.25", success: false },
      { at: new Date(base + 4 * DAY), amount: "0", eventType: "search" },
      { at: new Date(Date.now() - 2 * HOUR), amount: "1" },
    ]);
  });

  const day = (offset: number) => new Date(base + offset * DAY).toISOString().slice(0, 10);

  it("aggregates the window in SQL with charge outcome counts, credits and the largest charges", async () => {
    const { body } = await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}&end_date=${day(4)}`, past.accessToken);
    const s = body.data.summary;
    expect(s).toMatchObject({
      start_date: new Date(base).toISOString(),
      end_date: new Date(base + 5 * DAY).toISOString(),
      tz: "UTC",
      bucket: "day",
      total_count: 7,
      success_count: 5,
      failure_count: 2,
      charge_outcome_counts: { charged: 3, included: 2, failed_not_charged: 1, failed_charged_review: 1 },
      settled_credits: 8.75,
      pre_settlement_credits: 8.75,
    });
    expect(s.max_charge_items.map((i: { actual_amount_credits: number }) => i.actual_amount_credits)).toEqual([5, 2, 1.5, 0.25]);
    expect(s.buckets).toHaveLength(5);
    expect(s.buckets.map((b: { total_count: number }) => b.total_count)).toEqual([3, 1, 1, 1, 1]);
    expect(s.buckets[0]).toMatchObject({ bucket_start: new Date(base).toISOString(), charged_count: 2, included_count: 1, settled_credits: 7 });
  });

  it("answers the same from sealed hourly rollups as from raw rows, and seals only closed hours", async () => {
    const utc = (await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}T00:00:00Z&end_date=${day(4)}T23:59:59Z`, past.accessToken)).body.data.summary;
    const rollups = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_hourly_rollup WHERE account_id = ${past.accountId}`))[0].n;
    expect(rollups).toBeGreaterThan(0);
    expect(utc).toMatchObject({ total_count: 7, settled_credits: 8.75 });
    // Asia/Kolkata (+05:30) cannot be served from UTC hours: the raw path must agree on the totals.
    const istRes = await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}T05:30:00&end_date=${day(5)}T05:29:59.999999&tz=Asia/Kolkata`, past.accessToken);
    expect(istRes.status, JSON.stringify(istRes.body)).toBe(200);
    const ist = istRes.body.data.summary;
    expect(ist.tz).toBe("Asia/Kolkata");
    expect(ist.total_count).toBe(utc.total_count);
    expect(ist.settled_credits).toBe(utc.settled_credits);
    expect(ist.buckets[0].bucket_start_local).toBe(`${day(0)}T00:00:00`);
    // In +05:30 local days, 23:59 UTC on day 1 is 05:29 on day 2.
    const istDays = (await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}&end_date=${day(5)}&tz=Asia/Kolkata`, past.accessToken)).body.data.summary;
    expect(istDays.bucket).toBe("day");
    expect(istDays.buckets.map((b: { total_count: number }) => b.total_count)).toEqual([3, 0, 2, 1, 1, 0]);
    expect(istDays.buckets[2]).toMatchObject({ bucket_start_local: `${day(2)}T00:00:00`, failed_not_charged_count: 1 });
    expect(ist.buckets[0].bucket_start).toBe(new Date(base - 5.5 * HOUR).toISOString());
    const newest = rows<{ h: Date }>(await database.db.execute(sql`SELECT max(hour_start) AS h FROM usage_hourly_rollup WHERE account_id = ${past.accountId}`))[0].h;
    expect(new Date(newest).getTime()).toBeLessThan(Date.now() - HOUR);
  });

  it("splits an hour cut by a half-hour zone's midnight exactly (raw rows for that hour, rollup for the rest)", async () => {
    const cut = await seedAccount(database.db);
    await grantAt(database.db, cut.accountId, new Date(base), "10");
    // 18:30 UTC is midnight in Asia/Kolkata.
    await writePastEvents(database.db, cut.accountId, [
      { at: new Date(base + 18 * HOUR + 20 * 60_000), amount: "1" },
      { at: new Date(base + 18 * HOUR + 40 * 60_000), amount: "2" },
      { at: new Date(base + 20 * HOUR), amount: "0" },
    ]);
    const q = `summary=true&start_date=${day(0)}&end_date=${day(1)}&tz=Asia/Kolkata&bucket=day`;
    const first = (await get(`/auth/usage/history/v2?${q}`, cut.accessToken)).body.data.summary;
    expect(rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_hourly_rollup WHERE account_id = ${cut.accountId}`))[0].n).toBe(2);
    expect(first.buckets.map((b: { total_count: number; settled_credits: number }) => [b.total_count, b.settled_credits])).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it("chooses hour buckets for windows up to 3 days and day buckets beyond, unless bucket is given", async () => {
    const short = (await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}&end_date=${day(1)}`, past.accessToken)).body.data.summary;
    expect(short.bucket).toBe("hour");
    expect(short.buckets).toHaveLength(48);
    expect(short.buckets[1]).toMatchObject({ total_count: 2, settled_credits: 7 });
    const exactly3 = (await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}&end_date=${day(2)}`, past.accessToken)).body.data.summary;
    expect(exactly3.bucket).toBe("hour");
    const long = (await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}&end_date=${day(3)}`, past.accessToken)).body.data.summary;
    expect(long.bucket).toBe("day");
  });

  it("honours an explicit bucket=week: buckets start on Monday 00:00 (UTC here) and count each event in its week", async () => {
    const weekly = (await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}&end_date=${day(4)}&bucket=week`, past.accessToken)).body.data.summary;
    expect(weekly.bucket).toBe("week");
    const monday = (ms: number) => {
      const d = new Date(ms);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
    };
    const inWindow = written.filter((e) => e.at.getTime() < base + 5 * DAY);
    expect(inWindow).toHaveLength(7);
    const starts: number[] = [];
    for (let w = monday(base); w < base + 5 * DAY; w += 7 * DAY) starts.push(w);
    expect(weekly.buckets.map((b: { bucket_start: string }) => b.bucket_start)).toEqual(starts.map((w) => new Date(w).toISOString()));
    expect(weekly.buckets.map((b: { total_count: number }) => b.total_count)).toEqual(starts.map((w) => inWindow.filter((e) => monday(e.at.getTime()) === w).length));
  });

  it("covers the last 24 hours without dates, while items and total cover everything", async () => {
    const { body } = await get("/auth/usage/history/v2?summary=true", past.accessToken);
    const s = body.data.summary;
    expect(Date.parse(s.end_date) - Date.parse(s.start_date)).toBe(DAY);
    expect(Math.abs(Date.parse(s.end_date) - Date.now())).toBeLessThan(60_000);
    expect(s.total_count).toBe(1);
    expect(s.bucket).toBe("hour");
    expect(body.data.total).toBe(8);
  });

  it("extends a date-only end_date to the end of that day, in tz", async () => {
    const upTo1 = (await get(`/auth/usage/history/v2?start_date=${day(0)}&end_date=${day(1)}`, past.accessToken)).body.data;
    expect(upTo1.total).toBe(4);
    expect(upTo1.items[0].id).toBe(written[3].id);
    const datetimeEnd = (await get(`/auth/usage/history/v2?start_date=${day(0)}&end_date=${day(1)}T23:59:00Z`, past.accessToken)).body.data;
    expect(datetimeEnd.total).toBe(4);
    const beforeIt = (await get(`/auth/usage/history/v2?start_date=${day(0)}&end_date=${day(1)}T23:58:59Z`, past.accessToken)).body.data;
    expect(beforeIt.total).toBe(3);
    // 23:59 UTC on day 1 is day 2 in Tokyo: a Tokyo end_date of day 1 ends before it.
    const tokyo = (await get(`/auth/usage/history/v2?start_date=${day(0)}&end_date=${day(1)}&tz=Asia/Tokyo`, past.accessToken)).body.data;
    expect(tokyo.total).toBe(3);
  });

  it("limit sets the summary's sample size (default 10, at most 50)", async () => {
    const s = (await get(`/auth/usage/history/v2?summary=true&start_date=${day(0)}&end_date=${day(4)}&limit=2`, past.accessToken)).body.data.summary;
    expect(s.max_charge_items).toHaveLength(2);
  });

  it("flags anomalies computed on read: failed_charged_review, missing_ledger_link, missing_billing_snapshot", async () => {
    const odd = await seedAccount(database.db);
    await grantAt(database.db, odd.accountId, new Date(Date.now() - DAY), "10");
    const [noLedger, , snapshot] = await writePastEvents(database.db, odd.accountId, [
      { at: new Date(Date.now() - 3 * HOUR), amount: "1", skipLedger: true },
      { at: new Date(Date.now() - 2 * HOUR), amount: "1", success: false },
      { at: new Date(Date.now() - HOUR), amount: "0", billingSnapshotStatus: "missing" },
    ]);
    const byAnomaly = async (a: string) => (await get(`/auth/usage/history/v2?anomaly=${a}`, odd.accessToken)).body.data.items.map((i: { id: string }) => i.id);
    expect(await byAnomaly("missing_ledger_link")).toEqual([noLedger.id]);
    expect(await byAnomaly("missing_billing_snapshot")).toEqual([snapshot.id]);
    expect(await byAnomaly("failed_charged_review")).toHaveLength(1);
    const all = (await get("/auth/usage/history/v2", odd.accessToken)).body.data.items;
    expect(all.find((i: { id: string }) => i.id === noLedger.id).anomalies).toEqual(["missing_ledger_link"]);
    expect(all.find((i: { charge_outcome: string }) => i.charge_outcome === "failed_charged_review").anomalies).toEqual(["failed_charged_review"]);
  });
});

describe("GET /auth/usage/history/v2/summary: keyset feed", () => {
  it("pages by (created_at, id): a tie split across pages and rows written between pages appear exactly once, in order", async () => {
    const feed = await seedAccount(database.db);
    await grantAt(database.db, feed.accountId, new Date(Date.now() - DAY), "10");
    const t0 = Date.now() - 10 * HOUR;
    const tie = new Date(t0 + 1000);
    const uuid = (n: number) => `00000000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`;
    // Newest first: e4, e3, then the tied pair (id 0xc before 0xa), then e1, e0.
    const [e0, e1, tieLow, tieHigh, e3, e4] = await writePastEvents(database.db, feed.accountId, [
      { at: new Date(t0 - 1000) },
      { at: new Date(t0) },
      { at: tie, id: uuid(0xa) },
      { at: tie, id: uuid(0xc) },
      { at: new Date(t0 + 2000), amount: "1" },
      { at: new Date(t0 + 3000) },
    ]);
    const p1 = (await get("/auth/usage/history/v2/summary?page_size=3", feed.accessToken)).body.data;
    expect(p1.items.map((i: { id: string }) => i.id)).toEqual([e4.id, e3.id, tieHigh.id]);
    expect(p1.has_more).toBe(true);
    expect(p1.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);

    // Written between pages: at the cursor row's exact instant with a smaller id (after the cursor:
    // it belongs on a later page, between the tied pair), at that instant with a larger id and at a
    // newer time (both before the cursor: never on a later page).
    const [between] = await writePastEvents(database.db, feed.accountId, [
      { at: tie, id: uuid(0xb) },
      { at: tie, id: uuid(0xd) },
      { at: new Date() },
    ]);
    const p2 = (await get(`/auth/usage/history/v2/summary?page_size=3&cursor=${p1.next_cursor}`, feed.accessToken)).body.data;
    expect(p2.items.map((i: { id: string }) => i.id)).toEqual([between.id, tieLow.id, e1.id]);
    expect(p2.has_more).toBe(true);
    const p3 = (await get(`/auth/usage/history/v2/summary?page_size=3&cursor=${p2.next_cursor}`, feed.accessToken)).body.data;
    expect(p3.items.map((i: { id: string }) => i.id)).toEqual([e0.id]);
    expect(p3.has_more).toBe(false);
    expect(p3.next_cursor).toBeNull();

    const seen = [...p1.items, ...p2.items, ...p3.items].map((i: { id: string }) => i.id);
    expect(new Set(seen).size).toBe(seen.length);
    const expected = rows<{ id: string }>(
      await database.db.execute(sql`SELECT id FROM usage_events WHERE account_id = ${feed.accountId}
                                     AND (created_at, id) <= (${tie.toISOString()}::timestamptz, ${tieHigh.id}::uuid)
                                    ORDER BY created_at DESC, id DESC`),
    ).map((r) => r.id);
    expect(seen).toEqual([e4.id, e3.id, ...expected]);
    expect(p1.items[0]).toMatchObject({ event_type: "tool_execute", charge_outcome: "included", actual_amount_credits: 0 });
  });

  it("applies the list's filters and bounds", async () => {
    const charged = (await get("/auth/usage/history/v2/summary?charge_outcome=charged")).body.data;
    expect(charged.items).toHaveLength(3);
    expect((await get("/auth/usage/history/v2/summary?page_size=501")).status).toBe(422);
    expect((await get("/auth/usage/history/v2/summary?page_size=0")).status).toBe(422);
    for (const cursor of ["bm9wZQ", "abc"]) {
      const bad = await get(`/auth/usage/history/v2/summary?cursor=${cursor}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ status: "failure", status_code: -7, data: null, message: expect.stringMatching(/Invalid cursor/) });
    }
    const badBound = await get("/auth/usage/history/v2/summary?min_credits=lots");
    expect(badBound.status).toBe(400);
    expect(badBound.body).toMatchObject({ status_code: -7, data: null, message: expect.stringMatching(/Invalid min_credits/) });
  });
});

describe("GET /auth/usage/history/v2/export", () => {
  it("streams CSV with a header, correct quoting and a formula-injection guard", async () => {
    const csvAcct = await seedAccount(database.db);
    await grantAt(database.db, csvAcct.accountId, new Date(Date.now() - DAY), "10");
    const [tricky, formula] = await writePastEvents(database.db, csvAcct.accountId, [
      { at: new Date(Date.now() - 3 * HOUR), success: false, errorMessage: 'Upstream said "no", then\nfailed', amount: "0" },
      { at: new Date(Date.now() - 2 * HOUR), displayTarget: '=HYPERLINK("http://evil.example","click")', amount: "1" },
      { at: new Date(Date.now() - HOUR), displayTarget: "@SUM(A1)", errorMessage: "-2+3" },
    ]);
    const res = await fetch(`${server.url}/api/v1/auth/usage/history/v2/export`, { headers: bearer(csvAcct.accessToken) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="usage-events-.*\.csv"/);
    const table = parseCsv(await res.text());
    const [header, ...data] = table;
    expect(header.slice(0, 4)).toEqual(["id", "created_at", "event_type", "source_system"]);
    expect(header).toContain("anomalies");
    expect(header).not.toContain("request_payload");
    expect(data).toHaveLength(3);
    const col = (name: string) => header.indexOf(name);
    const byId = new Map(data.map((r) => [r[0], r]));
    expect(byId.get(tricky.id)![col("error_message")]).toBe('Upstream said "no", then\nfailed');
    expect(byId.get(formula.id)![col("display_target")]).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(byId.get(formula.id)![col("actual_amount_credits")]).toBe("1");
    expect(byId.get(formula.id)![col("success")]).toBe("true");
    expect(data[0][col("display_target")]).toBe("'@SUM(A1)");
    expect(data[0][col("error_message")]).toBe("'-2+3");
    expect(JSON.parse(byId.get(formula.id)![col("pre_settlement_bill")])).toMatchObject({ list_amount_credits: 1 });
    expect(data[0][col("created_at")]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it("applies the list's filters, adds the payload columns with include_details, and validates like the list", async () => {
    const res = await fetch(`${server.url}/api/v1/auth/usage/history/v2/export?charge_outcome=charged&include_details=true`, { headers: bearer(acct.accessToken) });
    const [header, ...data] = parseCsv(await res.text());
    expect(data).toHaveLength(3);
    expect(header.slice(-2)).toEqual(["request_payload", "response_payload_summary"]);
    expect((await get("/auth/usage/history/v2/export?start_date=nope")).status).toBe(400);
    expect((await get("/auth/usage/history/v2/export?event_type=nope")).status).toBe(422);
  });
});

describe("GET /auth/usage/history/v2/{event_id}", () => {
  it("returns one event of the account with its details", async () => {
    const list = (await get(`/auth/usage/history/v2?execution_id=${calls[0].executionId}`)).body.data.items;
    const { status, body } = await get(`/auth/usage/history/v2/${list[0].id}`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ id: list[0].id, execution_id: calls[0].executionId, request_payload: expect.any(Object) });
  });

  it("answers a malformed id with 422 and another account's event with 404", async () => {
    expect((await get("/auth/usage/history/v2/not-a-uuid")).status).toBe(422);
    const theirs = rows<{ id: string }>(await database.db.execute(sql`SELECT id FROM usage_events WHERE account_id = ${other.accountId} LIMIT 1`))[0].id;
    expect((await get(`/auth/usage/history/v2/${theirs}`, other.accessToken)).status).toBe(200);
    const denied = await get(`/auth/usage/history/v2/${theirs}`);
    expect(denied.status).toBe(404);
    expect(denied.body).toMatchObject({ status: "failure", status_code: 404 });
    expect((await get(`/auth/usage/history/v2/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("never lists another account's events", async () => {
    const mine = (await get("/auth/usage/history/v2?page_size=100")).body.data.items.map((i: { execution_id: string }) => i.execution_id);
    const theirs = rows<{ execution_id: string }>(await database.db.execute(sql`SELECT execution_id FROM usage_events WHERE account_id = ${other.accountId}`));
    for (const t of theirs) expect(mine).not.toContain(t.execution_id);
    expect((await get(`/auth/usage/history/v2?execution_id=${theirs[0].execution_id}`)).body.data.total).toBe(0);
  });

  it("requires a JWT (an API key is refused)", async () => {
    expect((await get("/auth/usage/history/v2", acct.apiKey)).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/auth/usage/history/v2`)).status).toBe(401);
  });
});

describe("GET /auth/usage/credits-spent", () => {
  it("sums the credits of the matching events in one aggregate", async () => {
    const all = (await get("/auth/usage/credits-spent")).body.data;
    expect(all).toMatchObject({ credits_spent: 3, event_count: 6, charged_event_count: 3, start_date: null, end_date: null });
    expect((await get("/auth/usage/credits-spent?charge_outcome=included")).body.data).toMatchObject({ credits_spent: 0, event_count: 2 });
    expect((await get("/auth/usage/credits-spent?kind=discover")).body.data.event_count).toBe(0);
    expect((await get("/auth/usage/credits-spent?start_date=2020-01-01&end_date=2020-01-02")).body.data.credits_spent).toBe(0);
    expect((await get("/auth/usage/credits-spent?start_date=bad")).body.status_code).toBe(-7);
  });
});

describe("filters that select rows", () => {
  let owner: Awaited<ReturnType<typeof seedAccount>>;
  let ev: WrittenEvent[];
  const SEARCH = "srch_filters_positive";

  beforeAll(async () => {
    owner = await seedAccount(database.db);
    const t = Date.now() - 5 * HOUR;
    await grantAt(database.db, owner.accountId, new Date(t - HOUR), "50");
    ev = await writePastEvents(database.db, owner.accountId, [
      { at: new Date(t), eventType: "search", searchId: SEARCH },
      { at: new Date(t + 60_000), eventType: "search_by_ids", searchId: SEARCH },
      { at: new Date(t + 120_000), amount: "2", searchId: SEARCH },
      { at: new Date(t + 180_000), amount: "1" },
      { at: new Date(t + 240_000), eventType: "model_call", amount: "1.5" },
      { at: new Date(t + 300_000), eventType: "model_call", success: false },
      // Provider answered (success) but nothing billable came back: the two flags differ.
      { at: new Date(t + 360_000), success: true, billableSuccess: false, reasonCode: "result.partial_success" },
    ]);
    // Another account's event with the same search_id must never show up.
    await writePastEvents(database.db, other.accountId, [{ at: new Date(t), eventType: "search", searchId: SEARCH }]);
  });

  const ids = async (query: string) => {
    const { status, body } = await get(`/auth/usage/history/v2?${query}`, owner.accessToken);
    expect(status).toBe(200);
    expect(body.data.total).toBe(body.data.items.length);
    return body.data.items.map((i: { id: string }) => i.id);
  };

  it("search_id returns the owner's Discover, Inspect and Call events of that search", async () => {
    expect(await ids(`search_id=${SEARCH}`)).toEqual([ev[2].id, ev[1].id, ev[0].id]);
  });

  it("kind=model returns exactly the model_call events", async () => {
    expect(await ids("kind=model")).toEqual([ev[5].id, ev[4].id]);
  });

  it("billable_success=true follows the billing flag, not the recorded success flag", async () => {
    expect(await ids("billable_success=true")).toEqual([ev[4].id, ev[3].id, ev[2].id, ev[1].id, ev[0].id]);
    expect(await ids("billable_success=false")).toEqual([ev[6].id, ev[5].id]);
    expect(await ids("success=true")).toContain(ev[6].id);
  });
});

describe("cross-account isolation of the feed, the export and credits-spent", () => {
  const theirEvents = async () =>
    rows<{ id: string; execution_id: string | null }>(await database.db.execute(sql`SELECT id::text AS id, execution_id FROM usage_events WHERE account_id = ${other.accountId}`));

  it("the usage feed never returns another account's events, even when filtered by their ids", async () => {
    const theirs = await theirEvents();
    expect(theirs.length).toBeGreaterThan(0);
    const mine = (await get("/auth/usage/history/v2/summary?page_size=500")).body.data.items.map((i: { id: string }) => i.id);
    expect(mine).toHaveLength(6);
    for (const t of theirs) expect(mine).not.toContain(t.id);
    const theirCall = theirs.find((t) => t.execution_id !== null)!;
    expect((await get(`/auth/usage/history/v2/summary?execution_id=${theirCall.execution_id}`)).body.data.items).toEqual([]);
    // The same request by the owner does find it: the filter works, the account boundary holds.
    expect((await get(`/auth/usage/history/v2/summary?execution_id=${theirCall.execution_id}`, other.accessToken)).body.data.items).toHaveLength(1);
  });

  it("the usage export never contains another account's rows", async () => {
    const theirs = new Set((await theirEvents()).map((t) => t.id));
    const [header, ...data] = parseCsv(await (await fetch(`${server.url}/api/v1/auth/usage/history/v2/export`, { headers: bearer(acct.accessToken) })).text());
    expect(header[0]).toBe("id");
    expect(data).toHaveLength(6);
    for (const r of data) expect(theirs.has(r[0])).toBe(false);
    const [, ...theirData] = parseCsv(await (await fetch(`${server.url}/api/v1/auth/usage/history/v2/export`, { headers: bearer(other.accessToken) })).text());
    expect(new Set(theirData.map((r) => r[0]))).toEqual(theirs);
  });

  it("credits-spent sums only the caller's account", async () => {
    const theirs = rows<{ spent: string; n: number }>(
      await database.db.execute(sql`SELECT coalesce(sum(actual_amount_credits), 0)::text AS spent, count(*)::int AS n FROM usage_events WHERE account_id = ${other.accountId}`),
    )[0];
    expect(Number(theirs.spent)).toBeGreaterThan(0);
    expect((await get("/auth/usage/credits-spent")).body.data).toMatchObject({ credits_spent: 3, event_count: 6 });
    expect((await get("/auth/usage/credits-spent", other.accessToken)).body.data).toMatchObject({ credits_spent: Number(theirs.spent), event_count: theirs.n });
  });
});

describe("OpenAPI", () => {
  it("describes every audit operation with the JWT scheme and the tz/lookup extensions", async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    for (const path of [
      "/auth/usage/history/v2",
      "/auth/usage/history/v2/summary",
      "/auth/usage/history/v2/export",
      "/auth/usage/history/v2/{event_id}",
      "/auth/usage/credits-spent",
      "/auth/credits/ledger",
      "/auth/credits/ledger/{entry_id}",
      "/auth/credits/ledger/export",
      "/auth/credits/ledger-readiness",
      "/auth/account/settlement-history",
      "/auth/lookup",
    ]) {
      expect(doc.paths[path]?.get?.security, path).toEqual([{ OAuth2: [path.includes("/usage/") || path === "/auth/lookup" ? "usage:read" : "ledger:read"] }]);
    }
    const tz = doc.paths["/auth/usage/history/v2"].get.parameters.find((p: { name: string }) => p.name === "tz");
    expect(tz.description).toMatch(/Extension/);
    expect(doc.paths["/auth/lookup"].get.description).toMatch(/Extension/);
  });
});

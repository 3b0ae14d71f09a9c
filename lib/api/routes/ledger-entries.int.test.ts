import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { grantCredits } from "../../billing/grant-credits";
import { grantAt, writePastEvents, type WrittenEvent } from "../../audit/testing-history";
import { parseCsv } from "../../testing/csv";
import { rows } from "../../db/row-sql";
import { newId } from "../../ids";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

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

async function call(apiKey: string, toolId: string, parameters: Record<string, unknown>) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "Content-Type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters }),
  });
  return (await res.json()) as { execution_id: string };
}

const COMPOUND = { principal: 100, annual_rate_percent: 5, years: 2 };

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  await importDemoCatalog(database.db);
  acct = await seedAccount(database.db, { credits: "100" });
  other = await seedAccount(database.db, { credits: "7" });
  await grantCredits(database.db, { accountId: acct.accountId, amount: "20", type: "payment_recharge" });
  for (let i = 0; i < 3; i++) await call(acct.apiKey, "builtin.finance.compound_interest", COMPOUND);
  await call(acct.apiKey, "builtin.convert.temperature", { value: 100, from: "C", to: "F" });
});

describe("GET /auth/credits/ledger", () => {
  it("lists the account's rows newest first with signed amounts and balance snapshots", async () => {
    const { status, body } = await get("/auth/credits/ledger");
    expect(status).toBe(200);
    const d = body.data;
    expect(d).toMatchObject({ total: 5, page: 1, page_size: 50, summary: null });
    expect(d.items.map((i: { entry_type: string }) => i.entry_type)).toEqual([
      "consume_tool_execute",
      "consume_tool_execute",
      "consume_tool_execute",
      "grant_payment_recharge",
      "grant_welcome_bonus",
    ]);
    expect(d.items[0]).toMatchObject({ amount_credits: -1, balance_before: { total_available_credits: 118 }, balance_after: { total_available_credits: 117 } });
    expect(d.items[0].execution_id).toMatch(/^exe_/);
    expect(d.items[4]).toMatchObject({ amount_credits: 100, balance_before: { total_available_credits: 0 } });
  });

  it("names the tool a Call's row charged, by id and catalog name, in the list, its summary and the single row; grants name none", async () => {
    const [{ name }] = rows<{ name: string }>(await database.db.execute(sql`SELECT name FROM tools WHERE id = 'builtin.finance.compound_interest'`));
    const d = (await get("/auth/credits/ledger?summary=true&scope=all")).body.data;
    type Row = { entry_type: string; execution_id: string | null; tool_id: string | null; tool_name: string | null };
    for (const item of [...d.items, ...d.summary.max_amount_items] as Row[]) {
      if (item.entry_type === "consume_tool_execute") expect(item).toMatchObject({ tool_id: "builtin.finance.compound_interest", tool_name: name });
      else expect(item).toMatchObject({ execution_id: null, tool_id: null, tool_name: null });
    }
    const call = (d.items as (Row & { id: string })[]).find((i) => i.entry_type === "consume_tool_execute")!;
    expect((await get(`/auth/credits/ledger/${call.id}`)).body.data).toMatchObject({ tool_id: "builtin.finance.compound_interest", tool_name: name });
  });

  const filters: [string, number][] = [
    ["entry_type=consume_tool_execute", 3],
    ["entry_type=grant_welcome_bonus", 1],
    ["scope=account_history", 4],
    ["scope=all", 5],
    ["direction=consume", 3],
    ["direction=grant", 2],
    ["direction=any", 5],
    ["min_credits=5", 2],
    ["min_credits=1&max_credits=1", 3],
    ["max_credits=20", 4],
    ["direction=consume&min_credits=2", 0],
  ];
  for (const [query, expected] of filters) {
    it(`filters ${query} -> ${expected}`, async () => {
      const { status, body } = await get(`/auth/credits/ledger?${query}`);
      expect(status).toBe(200);
      expect(body.data.total).toBe(expected);
      expect(body.data.items).toHaveLength(expected);
    });
  }

  it("pages with page/page_size (1-500) and limit", async () => {
    expect((await get("/auth/credits/ledger?page_size=2&page=3")).body.data.items).toHaveLength(1);
    expect((await get("/auth/credits/ledger?page_size=500")).status).toBe(200);
    expect((await get("/auth/credits/ledger?page_size=501")).status).toBe(422);
    expect((await get("/auth/credits/ledger?page=0")).status).toBe(422);
    expect((await get("/auth/credits/ledger?limit=2")).body.data).toMatchObject({ page_size: 2, total: 5 });
    expect((await get("/auth/credits/ledger?entry_type=nope")).status).toBe(422);
    expect((await get("/auth/credits/ledger?scope=nope")).status).toBe(422);
  });

  const invalid: [string, RegExp][] = [
    ["direction=up", /Invalid direction: "up"\. Allowed values: consume, grant, any/],
    ["min_credits=-1", /Invalid min_credits: -1\. Credit bounds must be greater than or equal to 0/],
    ["max_credits=-3", /Invalid max_credits/],
    ["min_credits=5&max_credits=2", /must not be greater than max_credits/],
    ["min_credits=five", /Invalid min_credits: "five"\. Credit bounds must be decimal numbers greater than or equal to 0/],
    ["max_credits=0x10", /Invalid max_credits: "0x10"/],
    ["start_date=31/12/2026", /Invalid start_date/],
    ["summary=true&bucket=minute", /Invalid bucket/],
  ];
  for (const [query, message] of invalid) {
    it(`answers ${query} with the 400 -7 wrapper`, async () => {
      const { status, body } = await get(`/auth/credits/ledger?${query}`);
      expect(status).toBe(400);
      expect(body).toMatchObject({ status: "failure", status_code: -7, data: null });
      expect(body.message).toMatch(message);
    });
  }
  it("treats an empty credit bound as absent", async () => {
    expect((await get("/auth/credits/ledger?min_credits=&max_credits=")).body.data.total).toBe(5);
  });

  it("caps limit at 50 (page_size reports it) and refuses limit=0 or a non-integer limit with 422", async () => {
    const many = await seedAccount(database.db);
    for (let i = 0; i < 55; i++) await grantAt(database.db, many.accountId, new Date(Date.now() - (i + 1) * 60_000), "1");
    const capped = (await get("/auth/credits/ledger?limit=80", many.accessToken)).body.data;
    expect(capped).toMatchObject({ total: 55, page_size: 50 });
    expect(capped.items).toHaveLength(50);
    expect((await get("/auth/credits/ledger?limit=50", many.accessToken)).body.data.items).toHaveLength(50);
    expect((await get("/auth/credits/ledger?limit=49", many.accessToken)).body.data.items).toHaveLength(49);
    for (const q of ["limit=0", "limit=-1", "limit=2.5", "limit=abc"]) {
      const { status, body } = await get(`/auth/credits/ledger?${q}`, many.accessToken);
      expect(status, q).toBe(422);
      expect(body.detail[0]).toMatchObject({ loc: expect.arrayContaining(["query", "limit"]) });
    }
  });

  it("extends a date-only end_date to the end of that day (and no further)", async () => {
    const edge = await seedAccount(database.db);
    const d = today - 3 * DAY;
    const atStart = await grantAt(database.db, edge.accountId, new Date(d), "1");
    const lastMoment = await grantAt(database.db, edge.accountId, new Date(d + DAY - 1), "2");
    await grantAt(database.db, edge.accountId, new Date(d + DAY), "4");
    await grantAt(database.db, edge.accountId, new Date(d - 1), "8");
    const day = (await get(`/auth/credits/ledger?start_date=${isoDay(d)}&end_date=${isoDay(d)}`, edge.accessToken)).body.data;
    expect(day.items.map((i: { id: string }) => i.id)).toEqual([lastMoment, atStart]);
    const datetime = (await get(`/auth/credits/ledger?start_date=${isoDay(d)}&end_date=${isoDay(d)}T00:00:00Z`, edge.accessToken)).body.data;
    expect(datetime.items.map((i: { id: string }) => i.id)).toEqual([atStart]);
  });

  it("honours an explicit bucket=week: Monday-based weeks, the first one starting before start_date, counting only the window", async () => {
    const weekly = await seedAccount(database.db);
    const todayDate = new Date(today);
    const monday = today - ((todayDate.getUTCDay() + 6) % 7) * DAY - 14 * DAY;
    await grantAt(database.db, weekly.accountId, new Date(monday + HOUR), "1");
    await grantAt(database.db, weekly.accountId, new Date(monday + 6 * DAY + 23 * HOUR), "2");
    await grantAt(database.db, weekly.accountId, new Date(monday + 7 * DAY), "4");
    await grantAt(database.db, weekly.accountId, new Date(monday + 10 * DAY), "8");
    const s = (await get(`/auth/credits/ledger?summary=true&bucket=week&start_date=${isoDay(monday + 2 * DAY)}&end_date=${isoDay(monday + 10 * DAY)}`, weekly.accessToken)).body.data.summary;
    expect(s.bucket).toBe("week");
    expect(s.total_entries).toBe(3);
    expect(s.buckets.map((b: { bucket_start: string; entry_count: number; granted_credits: number }) => [b.bucket_start, b.entry_count, b.granted_credits])).toEqual([
      [new Date(monday).toISOString(), 1, 2],
      [new Date(monday + 7 * DAY).toISOString(), 2, 12],
    ]);
  });

  it("summarises the last 24 hours without dates (2.7 ledger summary)", async () => {
    const s = (await get("/auth/credits/ledger?summary=true")).body.data.summary;
    expect(s).toMatchObject({
      tz: "UTC",
      bucket: "hour",
      total_entries: 5,
      consume_count: 3,
      grant_count: 2,
      consumed_credits: 3,
      granted_credits: 120,
      net_amount_credits: 117,
    });
    expect(Date.parse(s.end_date) - Date.parse(s.start_date)).toBe(DAY);
    expect(s.max_amount_items.map((i: { amount_credits: number }) => i.amount_credits).slice(0, 2)).toEqual([100, 20]);
    expect(s.buckets.reduce((n: number, b: { entry_count: number }) => n + b.entry_count, 0)).toBe(5);
    const consume = (await get("/auth/credits/ledger?summary=true&direction=consume&limit=1")).body.data.summary;
    expect(consume).toMatchObject({ total_entries: 3, grant_count: 0, granted_credits: 0, net_amount_credits: -3 });
    expect(consume.max_amount_items).toHaveLength(1);
  });

  it("summarises sealed days from the hourly rollup, in the requested time zone", async () => {
    const past = await seedAccount(database.db);
    const base = today - 6 * DAY;
    await grantAt(database.db, past.accountId, new Date(base + 2 * HOUR), "50");
    await writePastEvents(database.db, past.accountId, [
      { at: new Date(base + 3 * HOUR), amount: "2" },
      { at: new Date(base + 22 * HOUR + 30 * 60_000), amount: "3" },
      { at: new Date(base + DAY + 5 * HOUR), amount: "0.5" },
    ]);
    const q = `start_date=${isoDay(base)}&end_date=${isoDay(base + 4 * DAY)}`;
    const utc = (await get(`/auth/credits/ledger?summary=true&${q}`, past.accessToken)).body.data;
    expect(utc.total).toBe(4);
    expect(utc.summary).toMatchObject({ bucket: "day", total_entries: 4, consumed_credits: 5.5, granted_credits: 50, net_amount_credits: 44.5 });
    expect(utc.summary.buckets.map((b: { entry_count: number }) => b.entry_count)).toEqual([3, 1, 0, 0, 0]);
    const rollups = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM ledger_hourly_rollup WHERE account_id = ${past.accountId}`))[0].n;
    expect(rollups).toBe(4);
    // In Tokyo (+09:00) the 22:30 UTC charge falls on the next local day.
    const tokyo = (await get(`/auth/credits/ledger?summary=true&${q}&tz=Asia/Tokyo`, past.accessToken)).body.data.summary;
    expect(tokyo.tz).toBe("Asia/Tokyo");
    expect(tokyo.buckets[0]).toMatchObject({ bucket_start_local: `${isoDay(base)}T00:00:00`, bucket_start: new Date(base - 9 * HOUR).toISOString(), entry_count: 2 });
    expect(tokyo.buckets[1]).toMatchObject({ entry_count: 2, consumed_credits: 3.5 });
  });
});

describe("GET /auth/credits/ledger/{entry_id}", () => {
  it("returns one row of the account and 404 for another account's or an unknown id", async () => {
    const mine = (await get("/auth/credits/ledger?limit=1")).body.data.items[0];
    expect((await get(`/auth/credits/ledger/${mine.id}`)).body.data).toEqual(mine);
    const theirs = (await get("/auth/credits/ledger?limit=1", other.accessToken)).body.data.items[0];
    const denied = await get(`/auth/credits/ledger/${theirs.id}`);
    expect(denied.status).toBe(404);
    expect(denied.body).toMatchObject({ status: "failure", status_code: 404 });
    expect((await get("/auth/credits/ledger/led_nope")).status).toBe(404);
  });
});

describe("GET /auth/credits/ledger/export", () => {
  it("streams CSV, account_history scope by default, with exact amounts", async () => {
    const res = await fetch(`${server.url}/api/v1/auth/credits/ledger/export`, { headers: bearer(acct.accessToken) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const lines = (await res.text()).trim().split("\n");
    expect(lines[0]).toBe(
      "id,created_at,entry_type,amount_credits,balance_before,balance_after,source_system,source_ref_type,source_ref_id,execution_id,usage_event_id,pre_settlement_bill,settlement_result,ledger_metadata,description",
    );
    expect(lines).toHaveLength(5);
    expect(lines.some((l) => l.includes("grant_welcome_bonus"))).toBe(false);
    const consume = lines[1].split(",");
    expect(consume.slice(2, 6)).toEqual(["consume_tool_execute", "-1", "118", "117"]);
    const all = await (await fetch(`${server.url}/api/v1/auth/credits/ledger/export?scope=all`, { headers: bearer(acct.accessToken) })).text();
    expect(all.trim().split("\n")).toHaveLength(6);
    expect((await get("/auth/credits/ledger/export?direction=sideways")).status).toBe(400);
  });
});

describe("GET /auth/credits/ledger/export: quoting, formula guard, isolation", () => {
  it("quotes per RFC 4180 and prefixes formula-like text with a quote, leaving negative amounts alone", async () => {
    const csvAcct = await seedAccount(database.db);
    const t = Date.now() - 3 * HOUR;
    const quoted = await grantAt(database.db, csvAcct.accountId, new Date(t), "10", 'Refund "A", part 1\nsecond line');
    const hyperlink = await grantAt(database.db, csvAcct.accountId, new Date(t + 60_000), "1", '=HYPERLINK("http://evil.example","click")');
    const plus = await grantAt(database.db, csvAcct.accountId, new Date(t + 120_000), "1", "+SUM(1,2)");
    const at = await grantAt(database.db, csvAcct.accountId, new Date(t + 180_000), "1", "@cmd");
    const minus = await grantAt(database.db, csvAcct.accountId, new Date(t + 240_000), "1", "-2+3");
    const tab = await grantAt(database.db, csvAcct.accountId, new Date(t + 300_000), "1", "\tindent");
    const [charge] = await writePastEvents(database.db, csvAcct.accountId, [{ at: new Date(t + 360_000), amount: "2.5" }]);

    const res = await fetch(`${server.url}/api/v1/auth/credits/ledger/export`, { headers: bearer(csvAcct.accessToken) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="credits-ledger-.*\.csv"/);
    const [header, ...data] = parseCsv(await res.text());
    const col = (name: string) => header.indexOf(name);
    expect(data.map((r) => r[0])).toEqual([charge.ledgerId, tab, minus, at, plus, hyperlink, quoted]);
    const byId = new Map(data.map((r) => [r[0], r]));
    const description = (id: string) => byId.get(id)![col("description")];
    expect(description(quoted)).toBe('Refund "A", part 1\nsecond line');
    expect(description(hyperlink)).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(description(plus)).toBe("'+SUM(1,2)");
    expect(description(at)).toBe("'@cmd");
    expect(description(minus)).toBe("'-2+3");
    expect(description(tab)).toBe("'\tindent");
    const consume = byId.get(charge.ledgerId!)!;
    expect([consume[col("entry_type")], consume[col("amount_credits")], consume[col("balance_before")], consume[col("balance_after")]]).toEqual([
      "consume_tool_execute",
      "-2.5",
      "15",
      "12.5",
    ]);
    expect(JSON.parse(consume[col("ledger_metadata")])).toEqual({ credit_split: { bonus: "0", reward: "0", paid: "2.5" } });
    expect(consume[col("created_at")]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it("never exports another account's rows", async () => {
    const ids = async (token: string) => {
      const [, ...data] = parseCsv(await (await fetch(`${server.url}/api/v1/auth/credits/ledger/export?scope=all`, { headers: bearer(token) })).text());
      return data.map((r) => r[0]);
    };
    const ledgerOf = async (accountId: string) =>
      rows<{ id: string }>(await database.db.execute(sql`SELECT id FROM credits_ledger WHERE account_id = ${accountId}`)).map((r) => r.id);
    expect(new Set(await ids(acct.accessToken))).toEqual(new Set(await ledgerOf(acct.accountId)));
    expect(new Set(await ids(other.accessToken))).toEqual(new Set(await ledgerOf(other.accountId)));
  });

  it("answers an invalid credit bound with the 400 -7 wrapper, like the list", async () => {
    const { status, body } = await get("/auth/credits/ledger/export?min_credits=ten");
    expect(status).toBe(400);
    expect(body).toMatchObject({ status: "failure", status_code: -7, data: null, message: expect.stringMatching(/Invalid min_credits/) });
  });
});

describe("GET /auth/credits/ledger-readiness", () => {
  it("is ready for an account whose history was written by the real Call path", async () => {
    const { status, body } = await get("/auth/credits/ledger-readiness");
    expect(status).toBe(200);
    const r = body.data;
    expect(r.ready).toBe(true);
    expect(r).toMatchObject({ events_checked: 4, charged_events: 3, ledger_entries_checked: 5, balance_start: 0, balance_end: 117, net_amount_credits: 117 });
    expect(r.checks.map((c: { name: string }) => c.name)).toEqual([
      "missing_ledger_links",
      "duplicate_ledger_links",
      "amount_mismatches",
      "uncharged_with_ledger",
      "consume_without_event",
      "consume_duplicate_events",
      "chain_breaks",
      "balance_delta",
      "current_balance",
    ]);
    expect(r.checks.every((c: { passed: boolean }) => c.passed)).toBe(true);
  });

  let broken: Awaited<ReturnType<typeof seedAccount>>;
  let brokenEvents: WrittenEvent[];
  const base = today - 5 * DAY;

  beforeAll(async () => {
    broken = await seedAccount(database.db);
    await grantAt(database.db, broken.accountId, new Date(base + HOUR), "30");
    brokenEvents = await writePastEvents(database.db, broken.accountId, [
      { at: new Date(base + 2 * HOUR), amount: "1" },
      { at: new Date(base + DAY + 2 * HOUR), amount: "2", skipLedger: true },
      { at: new Date(base + 2 * DAY + 2 * HOUR), amount: "3" },
      { at: new Date(base + 3 * DAY + 2 * HOUR), amount: "0" },
    ]);
  });

  it("is not ready when a charged event has no ledger row, and names it", async () => {
    const r = (await get("/auth/credits/ledger-readiness", broken.accessToken)).body.data;
    expect(r.ready).toBe(false);
    const missing = r.checks.find((c: { name: string }) => c.name === "missing_ledger_links");
    expect(missing).toMatchObject({ passed: false, violations: 1, sample_ids: [brokenEvents[1].id] });
    expect(r.sealed_days).toBeGreaterThan(0);
    // Ranges that exclude the broken day are ready; from the sealed summary, not rescanned.
    const before = (await get(`/auth/credits/ledger-readiness?start_date=${isoDay(base)}&end_date=${isoDay(base)}`, broken.accessToken)).body.data;
    expect(before).toMatchObject({ ready: true, sealed_days: 1, charged_events: 1, ledger_entries_checked: 2 });
    const after = (await get(`/auth/credits/ledger-readiness?start_date=${isoDay(base + 2 * DAY)}&end_date=${isoDay(base + 3 * DAY)}`, broken.accessToken)).body.data;
    expect(after.ready).toBe(true);
  });

  it("finds a missing ledger link in a past day that failed readiness (ready days are skipped)", async () => {
    const found = (await get("/auth/usage/history/v2?anomaly=missing_ledger_link", broken.accessToken)).body.data;
    expect(found.total).toBe(1);
    expect(found.items.map((i: { id: string }) => i.id)).toEqual([brokenEvents[1].id]);
    const feed = (await get("/auth/usage/history/v2/summary?anomaly=missing_ledger_link", broken.accessToken)).body.data;
    expect(feed.items.map((i: { id: string }) => i.id)).toEqual([brokenEvents[1].id]);
  });

  it("detects a break in the balance chain and a consume row without its event", async () => {
    const chain = await seedAccount(database.db, { credits: "10" });
    await database.db.execute(sql`
      INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, balance_before, balance_after, description)
      VALUES (${newId("led")}, ${chain.accountId}, 'consume_model_call', -1, 'tollgate', 9, 8, 'off the chain')`);
    await database.db.execute(sql`UPDATE credit_balances SET bonus_credits = 9 WHERE account_id = ${chain.accountId}`);
    const r = (await get("/auth/credits/ledger-readiness", chain.accessToken)).body.data;
    expect(r.ready).toBe(false);
    const byName = Object.fromEntries(r.checks.map((c: { name: string; violations: number }) => [c.name, c.violations]));
    expect(byName).toMatchObject({ chain_breaks: 1, consume_without_event: 1, missing_ledger_links: 0, current_balance: 1 });
  });

  it("validates its dates", async () => {
    expect((await get("/auth/credits/ledger-readiness?start_date=tomorrow")).body).toMatchObject({ status_code: -7 });
  });

  it("checks only the caller's account: another account's broken history neither fails nor counts in it", async () => {
    const mine = (await get("/auth/credits/ledger-readiness")).body.data;
    const count = async (table: "usage_events" | "credits_ledger", accountId: string) =>
      rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM ${sql.raw(table)} WHERE account_id = ${accountId}`))[0].n;
    expect(mine).toMatchObject({ ready: true, events_checked: await count("usage_events", acct.accountId), ledger_entries_checked: await count("credits_ledger", acct.accountId) });
    const theirs = (await get("/auth/credits/ledger-readiness", broken.accessToken)).body.data;
    expect(theirs).toMatchObject({ ready: false, events_checked: await count("usage_events", broken.accountId), ledger_entries_checked: await count("credits_ledger", broken.accountId) });
  });

  describe("GET /auth/account/settlement-history", () => {
    it("serves closed days from the sealed summary and flags the day that failed readiness as live", async () => {
      const { status, body } = await get("/auth/account/settlement-history?scope=all", broken.accessToken);
      expect(status).toBe(200);
      const d = body.data;
      expect(d.scope).toBe("all");
      expect(d.ready).toBe(false);
      const byDay = Object.fromEntries(d.items.map((i: { day: string }) => [i.day, i]));
      expect(byDay[isoDay(base)]).toMatchObject({ source: "summary", ready: true, entry_count: 2, grant_count: 1, consume_count: 1, consumed_credits: 1, granted_credits: 30, net_amount_credits: 29, balance_open: 0, balance_close: 29 });
      expect(byDay[isoDay(base + DAY)]).toMatchObject({ source: "live", ready: false, entry_count: 0 });
      expect(byDay[isoDay(base + 2 * DAY)]).toMatchObject({ source: "summary", ready: true, consumed_credits: 3, balance_open: 29, balance_close: 26 });
      expect(byDay[isoDay(base + 3 * DAY)]).toBeUndefined();
      expect(d.items.map((i: { day: string }) => i.day)).toEqual([isoDay(base + 2 * DAY), isoDay(base + DAY), isoDay(base)]);
    });

    it("pages by cursor, honours the scope and the range, and keeps sealed rows immutable", async () => {
      const p1 = (await get("/auth/account/settlement-history?scope=all&page_size=1", broken.accessToken)).body.data;
      expect(p1.items).toHaveLength(1);
      expect(p1.has_more).toBe(true);
      const p2 = (await get(`/auth/account/settlement-history?scope=all&page_size=1&cursor=${p1.next_cursor}`, broken.accessToken)).body.data;
      expect(p2.items[0].day).toBe(isoDay(base + DAY));
      const p3 = (await get(`/auth/account/settlement-history?scope=all&page_size=1&cursor=${p2.next_cursor}`, broken.accessToken)).body.data;
      expect(p3.items[0].day).toBe(isoDay(base));
      expect(p3.has_more).toBe(false);
      const history = (await get("/auth/account/settlement-history", broken.accessToken)).body.data;
      expect(history.scope).toBe("account_history");
      expect(history.items.find((i: { day: string }) => i.day === isoDay(base))).toMatchObject({ entry_count: 2, granted_credits: 30 });
      const ranged = (await get(`/auth/account/settlement-history?start_date=${isoDay(base + 2 * DAY)}&end_date=${isoDay(base + 2 * DAY)}`, broken.accessToken)).body.data;
      expect(ranged.items.map((i: { day: string }) => i.day)).toEqual([isoDay(base + 2 * DAY)]);
      expect(ranged.ready).toBe(true);
      await expect(database.db.execute(sql`UPDATE ledger_daily_summary SET entry_count = 0 WHERE account_id = ${broken.accountId}`)).rejects.toThrow();
      await expect(database.db.execute(sql`DELETE FROM usage_hourly_rollup WHERE account_id = ${broken.accountId}`)).rejects.toThrow();
    });

    it("shows only the caller's ledger: another account's entries on the same day never count", async () => {
      const day = (await get("/auth/account/settlement-history?scope=all")).body.data.items.find((i: { day: string }) => i.day === isoDay(today));
      const theirs = (await get("/auth/account/settlement-history?scope=all", other.accessToken)).body.data.items;
      expect(day).toMatchObject({ entry_count: 5, consume_count: 3, grant_count: 2, granted_credits: 120, consumed_credits: 3 });
      expect(theirs).toEqual([expect.objectContaining({ day: isoDay(today), entry_count: 1, grant_count: 1, granted_credits: 7, consume_count: 0 })]);
      expect((await get("/auth/account/settlement-history", broken.accessToken)).body.data.items.some((i: { day: string }) => i.day === isoDay(today))).toBe(false);
    });

    it("computes live only the days a page needs, newest first, however many unsealed days the range holds", async () => {
      const late = await seedAccount(database.db);
      const base = today - 12 * DAY;
      await grantAt(database.db, late.accountId, new Date(base + HOUR), "100");
      // Ten closed days whose charge had no ledger row when the day was sealed: they fail readiness.
      const days = Array.from({ length: 10 }, (_, i) => base + (i + 1) * DAY);
      const charges = await writePastEvents(database.db, late.accountId, days.map((d) => ({ at: new Date(d + 2 * HOUR), amount: "1", skipLedger: true })));
      const sealedDays = async () =>
        rows<{ day: string }>(await database.db.execute(sql`SELECT day::text AS day FROM ledger_daily_summary WHERE account_id = ${late.accountId} AND entry_count > 0 ORDER BY day`)).map((r) => r.day);
      expect((await get("/auth/credits/ledger-readiness", late.accessToken)).body.data.ready).toBe(false);
      expect(await sealedDays()).toEqual([isoDay(base)]);

      // The missing rows are written late (continuous chain by seq): each day now passes, and is
      // sealed the first time it is computed live.
      for (const c of charges) {
        await database.db.execute(sql`
          WITH b AS (UPDATE credit_balances SET paid_credits = paid_credits - 1 WHERE account_id = ${late.accountId}
                     RETURNING paid_credits + bonus_credits + reward_credits AS total_after)
          INSERT INTO credits_ledger (id, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id, execution_id,
                                      balance_before, balance_after, description, created_at)
          SELECT ${newId("led")}, ${late.accountId}, 'consume_tool_execute', -1, 'tollgate', 'execution', ${c.executionId}, ${c.executionId},
                 total_after + 1, total_after, 'late settlement', ${c.at.toISOString()}::timestamptz FROM b`);
      }

      const first = (await get("/auth/account/settlement-history?page_size=2", late.accessToken)).body.data;
      expect(first.items.map((i: { day: string }) => i.day)).toEqual([isoDay(days[9]), isoDay(days[8])]);
      expect(first.items.every((i: { ready: boolean }) => i.ready)).toBe(true);
      expect(first.has_more).toBe(true);
      // The oldest corrected days were not needed for this page, so they were not computed (nor sealed).
      const afterFirst = await sealedDays();
      for (const d of days.slice(0, 4)) expect(afterFirst).not.toContain(isoDay(d));

      const seen: string[] = first.items.map((i: { day: string }) => i.day);
      for (let cursor = first.next_cursor; cursor; ) {
        const next = (await get(`/auth/account/settlement-history?page_size=2&cursor=${cursor}`, late.accessToken)).body.data;
        expect(next.items.length).toBeGreaterThan(0);
        seen.push(...next.items.map((i: { day: string }) => i.day));
        cursor = next.next_cursor;
      }
      expect(seen).toEqual([...days].reverse().map(isoDay).concat(isoDay(base)));
      expect(await sealedDays()).toEqual([base, ...days].map(isoDay));
    });

    it("computes today's open day live", async () => {
      const d = (await get("/auth/account/settlement-history")).body.data;
      expect(d.items[0]).toMatchObject({ day: isoDay(today), source: "live", ready: true, consume_count: 3, grant_count: 1, consumed_credits: 3, granted_credits: 20 });
      expect(d.ready).toBe(true);
    });

    it("validates its parameters", async () => {
      expect((await get("/auth/account/settlement-history?page_size=501")).status).toBe(422);
      expect((await get("/auth/account/settlement-history?scope=bogus")).status).toBe(422);
      expect((await get("/auth/account/settlement-history?cursor=zzz")).body.status_code).toBe(-7);
      expect((await get("/auth/account/settlement-history?start_date=2026-99-01")).body.status_code).toBe(-7);
    });
  });
});

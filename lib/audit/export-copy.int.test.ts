import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase, testDbKind } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { startTestServer } from "../testing/server";
import { TRICKY_TEXT, parseCsv } from "../testing/csv";
import { rows } from "../db/row-sql";
import type { Database } from "../db/types";
import { scrapeMetrics } from "../observability/metrics";
import { type ExportMethod, USAGE_EXPORT, exportLedgerCsv, exportUsageCsv } from "./exports";
import { takeCopySlot } from "./csv-copy";
import { poolOf } from "../db/open";
import type { UsageFilters } from "./usage-filters";
import { grantAt, writePastEvents } from "./testing-history";

// The exports run by PostgreSQL's COPY when they can (csv-copy.ts) and by keyset batches formatted
// in the server otherwise (PGlite, every COPY slot taken). These tests hold the two to the same bytes.

let database: Database;
const HOUR = 3_600_000;
const onPostgres = testDbKind() === "postgres";

beforeAll(async () => {
  database = await createTestDatabase();
});

async function usageText(accountId: string, method: ExportMethod, filters: UsageFilters = {}, includeDetails = true): Promise<string> {
  const open = await exportUsageCsv(database.db, accountId, { filters, includeDetails }, { ...USAGE_EXPORT, method });
  return new Response(open()).text();
}

async function ledgerText(accountId: string, method: ExportMethod): Promise<string> {
  const open = await exportLedgerCsv(database.db, accountId, { filters: { direction: "any" } }, { method });
  return new Response(open()).text();
}

/** `tollgate_csv_exports_total` by export and method. */
async function exportCounts(): Promise<Record<string, number>> {
  const { body } = await scrapeMetrics();
  const counts: Record<string, number> = {};
  for (const m of body.matchAll(/^tollgate_csv_exports_total\{export="(\w+)",method="(\w+)"\} (\d+)$/gm)) counts[`${m[1]}:${m[2]}`] = Number(m[3]);
  return counts;
}

const delta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]).filter(([, v]) => v !== 0));

/** An account whose events carry every tricky text in every free-text column, and a ledger of tricky descriptions. */
async function trickyAccount() {
  const acct = await seedAccount(database.db);
  for (const [i, text] of TRICKY_TEXT.entries()) await grantAt(database.db, acct.accountId, new Date(Date.now() - (50 + i) * HOUR), "10", text || "grant");
  const events = await writePastEvents(
    database.db,
    acct.accountId,
    TRICKY_TEXT.map((text, i) => ({
      at: new Date(Date.now() - (i + 1) * 60_000),
      amount: i % 3 === 0 ? "0" : `0.${(i % 9) + 1}5`,
      success: i % 4 !== 1,
      errorMessage: text,
      displayTarget: TRICKY_TEXT[(i + 7) % TRICKY_TEXT.length],
      reasonCode: TRICKY_TEXT[(i + 3) % TRICKY_TEXT.length],
      toolId: i % 5 === 0 ? TRICKY_TEXT[(i + 11) % TRICKY_TEXT.length] : undefined,
    })),
  );
  // Columns the writer derives: set them to tricky text (and JSON holding it) directly.
  for (const [i, e] of events.entries()) {
    const text = TRICKY_TEXT[(i + 5) % TRICKY_TEXT.length];
    await database.db.execute(sql`
      UPDATE usage_events SET model = ${text}, billing_summary = ${TRICKY_TEXT[(i + 9) % TRICKY_TEXT.length]},
             request_payload = jsonb_build_object('parameters', jsonb_build_object('q', ${text}::text)),
             response_payload_summary = to_jsonb(${text}::text)
       WHERE id = ${e.id}::uuid`);
  }
  return { ...acct, events };
}

/**
 * An account with ~130 MB of CSV with details (15k events of 8 KB payloads, which TOAST compresses
 * to almost nothing), far more than the socket buffers between PostgreSQL, the server and the
 * client hold (Linux autotunes a loopback receive buffer up to tcp_rmem's 32 MB here): a COPY of it
 * is still sending after the first chunks.
 */
async function bigAccount() {
  const acct = await seedAccount(database.db);
  const [seed] = await writePastEvents(database.db, acct.accountId, [{ at: new Date(Date.now() - HOUR) }]);
  await database.db.execute(sql`UPDATE usage_events SET request_payload = jsonb_build_object('blob', repeat('x', 8000)) WHERE id = ${seed.id}::uuid`);
  await database.db.execute(sql`
    INSERT INTO usage_events SELECT (jsonb_populate_record(e, jsonb_build_object('id', gen_random_uuid(), 'created_at', e.created_at - g * interval '1 ms'))).*
      FROM usage_events e, generate_series(1, 15000) g WHERE e.id = ${seed.id}::uuid`);
  return acct;
}

/** Reads past the header (written before the COPY starts) until a quarter megabyte of rows has come. */
async function readSome(reader: ReadableStreamDefaultReader<Uint8Array>) {
  for (let bytes = 0; bytes < 256 * 1024; ) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the export ended early");
    bytes += value.byteLength;
  }
}

const copying = async () =>
  rows<{ n: number }>(
    await database.db.execute(sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY (SELECT%' AND state = 'active'`),
  )[0].n;

/** Every COPY slot is free (a quarter of the test pool's 10 connections) and a whole export of the account runs. */
async function expectAllFreeAfter(accountId: string) {
  const pool = poolOf(database.db)!;
  const slots = [];
  for (let s = takeCopySlot(pool); s; s = takeCopySlot(pool)) slots.push(s);
  expect(slots).toHaveLength(2);
  for (const release of slots) release();
  const [, ...data] = parseCsv(await usageText(accountId, "auto", {}, false));
  expect(data).toHaveLength(15_001);
}

describe("the COPY and keyset exports", () => {
  it("write the same bytes for every tricky cell, guarded and quoted as the contract says", async () => {
    const acct = await trickyAccount();
    const before = await exportCounts();
    const auto = await usageText(acct.accountId, "auto");
    const keyset = await usageText(acct.accountId, "keyset");
    const ledgerAuto = await ledgerText(acct.accountId, "auto");
    const ledgerKeyset = await ledgerText(acct.accountId, "keyset");
    // The automatic choice is COPY on PostgreSQL: this compares two writers there, not one with itself.
    expect(delta(before, await exportCounts())).toEqual(
      onPostgres ? { "usage:copy": 1, "usage:keyset": 1, "ledger:copy": 1, "ledger:keyset": 1 } : { "usage:keyset": 2, "ledger:keyset": 2 },
    );
    expect(auto).toBe(keyset);
    expect(ledgerAuto).toBe(ledgerKeyset);

    // And the bytes are right, not merely equal: read back, each cell is the stored text with the guard's quote.
    const [header, ...data] = parseCsv(auto);
    expect(data).toHaveLength(TRICKY_TEXT.length);
    const stored = rows<{ id: string; error_message: string | null; model: string | null; success: boolean; amount: string }>(
      await database.db.execute(sql`SELECT id, error_message, model, success, trim_scale(settled_amount_credits)::text AS amount
                                       FROM usage_events WHERE account_id = ${acct.accountId}`),
    );
    const byId = new Map(stored.map((r) => [r.id, r]));
    const guarded = (s: string | null) => (s === null ? "" : /^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s) ? `'${s}` : s);
    const col = (name: string) => header.indexOf(name);
    for (const r of data) {
      const s = byId.get(r[0])!;
      expect(r[col("error_message")]).toBe(guarded(s.error_message));
      expect(r[col("model")]).toBe(guarded(s.model));
      expect(r[col("success")]).toBe(String(s.success));
      expect(r[col("settled_amount_credits")]).toBe(s.amount);
      expect(JSON.parse(r[col("request_payload")]).parameters.q).toBe(s.model);
    }
    const cells = new Set(data.map((r) => r[col("error_message")]));
    for (const c of ["'=1+1", "-5", "'-2+3", "'\tx", "'\rx", 'say "hi"', "a,b", "a\r\nb", "", "日本語,テキスト"]) expect(cells).toContain(c);
    const [ledgerHeader, ...ledger] = parseCsv(ledgerAuto);
    expect(new Set(ledger.map((r) => r[ledgerHeader.indexOf("description")]))).toContain("'@SUM(A1)");
  });

  it("take a filter's quotes and backslashes as data", async () => {
    const acct = await seedAccount(database.db);
    const odd = `it's \\ odd'); DELETE FROM usage_events; --`;
    await writePastEvents(database.db, acct.accountId, [
      { at: new Date(Date.now() - 2 * HOUR), reasonCode: odd },
      { at: new Date(Date.now() - HOUR), reasonCode: "result.valid" },
    ]);
    for (const method of ["auto", "keyset"] as const) {
      const [header, ...data] = parseCsv(await usageText(acct.accountId, method, { reasonCode: odd }));
      expect(data.map((r) => r[header.indexOf("reason_code")])).toEqual([odd]);
    }
    const [{ n }] = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_events WHERE account_id = ${acct.accountId}`));
    expect(n).toBe(2);
  });

  if (onPostgres) {
    it("give back the connection and the COPY slot when the HTTP client goes away mid-export", async () => {
      const acct = await bigAccount();
      const server = await startTestServer(database);
      const aborted = new AbortController();
      const res = await fetch(`${server.url}/api/v1/auth/usage/history/v2/export?include_details=true`, {
        headers: bearer(acct.accessToken),
        signal: aborted.signal,
      });
      try {
        await readSome(res.body!.getReader());
        expect(await copying()).toBe(1);
      } finally {
        aborted.abort();
      }
      for (let i = 0; i < 100 && (await copying()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await copying()).toBe(0);
      await expectAllFreeAfter(acct.accountId);
    });

    it("end the export with an error, and keep serving, when PostgreSQL ends the COPY's connection", async () => {
      const acct = await bigAccount();
      const open = await exportUsageCsv(database.db, acct.accountId, { filters: {}, includeDetails: true });
      const reader = open().getReader();
      await readSome(reader);
      expect(await copying()).toBe(1);
      await database.db.execute(sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                                     WHERE datname = current_database() AND query LIKE 'COPY (SELECT%'`);
      let failure: unknown;
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read());
      } catch (err) {
        failure = err;
      }
      expect(String(failure)).toMatch(/terminat/);
      await expectAllFreeAfter(acct.accountId);
    });

    it("fall back to keyset batches while every COPY slot is taken, with the same rows", async () => {
      const acct = await trickyAccount();
      const pool = poolOf(database.db)!;
      const held = [];
      for (let s = takeCopySlot(pool); s; s = takeCopySlot(pool)) held.push(s);
      try {
        const before = await exportCounts();
        const busy = await usageText(acct.accountId, "auto");
        expect(delta(before, await exportCounts())).toEqual({ "usage:keyset": 1 });
        held.pop()!();
        expect(await usageText(acct.accountId, "auto")).toBe(busy);
        expect(delta(before, await exportCounts())).toEqual({ "usage:keyset": 1, "usage:copy": 1 });
      } finally {
        for (const release of held) release();
      }
    });
  }
});

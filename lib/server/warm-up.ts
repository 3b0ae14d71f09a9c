import http, { type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { logger } from "../log";
import { ledgerReadiness } from "../audit/ledger-readiness";
import { listLedgerEntries } from "../audit/ledger-history";
import { ledgerFilters } from "../audit/query-schemas";
import { creditsSpent, listUsageEvents } from "../audit/usage-history";
import { listApiKeys } from "../auth/api-keys";
import { listBudgets } from "../billing/budgets";
import { getBalance } from "../billing/get-balance";
import { listCreditExpirations } from "../billing/list-expirations";
import { listNotifications } from "../alerts/notifications";

/** No account has this id (ids are `acc_` + a ULID): with no account yet, the reads find nothing and write nothing. */
const NO_ACCOUNT = "acc_warm_up";

/** Pages and routes a browser asks for first; without a session each answers a redirect, a 401 or the sign-in page. */
const FIRST_PATHS = ["/login", "/", "/api/auth/session", "/api/dashboard/token"];

/**
 * Runs, before the server listens, what the first visitor would otherwise pay for: the reads of
 * the dashboard's landing page (the Overview) for the account whose audit history was read last,
 * so the database has planned over every table and index they touch (the rollups included), that
 * account's hours closed while the server was down are sealed, and the code is compiled; then the
 * first pages through Next, which loads their modules. On the embedded database that was most of
 * the first Overview's time after a start (`npm run bench:overview`). The reads write nothing but
 * the seal, which the first read would have written. Nothing here may stop the server: a failing
 * step is logged and skipped.
 */
export async function warmUp(opts: { db: Db; handler: RequestListener }): Promise<{ readsMs: number; pagesMs: number }> {
  const started = performance.now();
  await warmReads(opts.db);
  const read = performance.now();
  await warmPages(opts.handler);
  return { readsMs: Math.round(read - started), pagesMs: Math.round(performance.now() - read) };
}

async function warmReads(db: Db): Promise<void> {
  let account = NO_ACCOUNT;
  try {
    account = rows<{ account_id: string }>(await db.execute(sql`SELECT account_id FROM audit_seal_state ORDER BY updated_at DESC LIMIT 1`))[0]?.account_id ?? NO_ACCOUNT;
  } catch (err) {
    logger.warn({ err: (err as Error).message }, "warm-up: no account to read");
  }
  const today = new Date().toISOString().slice(0, 10);
  const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
  const week = { startDate: weekAgo, endDate: today, tz: "UTC" };
  const summary = { ...week, filters: {}, page: 1, pageSize: 1, limit: 5, summary: true, bucket: "day" as const };
  const reads: [string, () => Promise<unknown>][] = [
    ["balance", () => getBalance(db, account)],
    ["expirations", () => listCreditExpirations(db, { accountId: account })],
    ["budgets", () => listBudgets(db, account)],
    ["api keys", () => listApiKeys(db, { accountId: account })],
    ["notifications", () => listNotifications(db, { accountId: account, limit: 1 })],
    ["credits spent", () => creditsSpent(db, account, week)],
    ["usage summary", () => listUsageEvents(db, account, { ...summary, includeDetails: false })],
    ["ledger summary", () => listLedgerEntries(db, account, { ...summary, filters: ledgerFilters({}) })],
    ["expiry summary", () => listLedgerEntries(db, account, { ...summary, filters: ledgerFilters({ scope: "expiry" }) })],
    ["ledger readiness", () => ledgerReadiness(db, account, week)],
  ];
  for (const [name, read] of reads) {
    try {
      await read();
    } catch (err) {
      // getBalance answers "not found" for the made-up account, after its query ran.
      if ((err as { code?: string }).code !== "not_found") logger.warn({ err: (err as Error).message, read: name }, "warm-up read failed");
    }
  }
}

/** Each path once through the server's own request handler, on a loopback port of its own that closes afterwards. */
async function warmPages(handler: RequestListener): Promise<void> {
  const server = http.createServer(handler);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    for (const path of FIRST_PATHS) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: "manual", signal: AbortSignal.timeout(30_000) });
        await res.arrayBuffer();
      } catch (err) {
        logger.warn({ err: (err as Error).message, path }, "warm-up request failed");
      }
    }
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

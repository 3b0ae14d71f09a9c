import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase, testDbKind } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { assertLedgerInvariants } from "../testing/invariants";
import { rows } from "../db/row-sql";
import { ManualClock } from "../clock";
import { grantCredits } from "../billing/grant-credits";
import { setBudget } from "../billing/budgets";
import { createWebhookEndpoint } from "../webhooks/endpoints";
import { setAlertSettings } from "./settings";
import type { Database } from "../db/types";

/**
 * Thresholds are claimed by the statement whose settlement crossed them: each fires once per
 * threshold and period, even when the Calls that cross it run at once (PostgreSQL).
 */
let database: Database;
let server: TestServer;
const clock = new ManualClock(new Date("2026-11-25T12:00:00Z"));
const BUILTIN = "builtin.finance.compound_interest"; // 1 credit

beforeAll(async () => {
  database = await createTestDatabase({ poolSize: 20 });
  await importDemoCatalog(database.db);
  server = await startTestServer(database, { clock });
});

async function call(apiKey: string, i: number) {
  const res = await fetch(`${server.url}/api/v1/tools/execute`, {
    method: "POST",
    headers: { ...bearer(apiKey), "content-type": "application/json" },
    body: JSON.stringify({ tool_id: BUILTIN, parameters: { principal: 100 + i, annual_rate_percent: 5, years: 2 } }),
  });
  await res.json();
  return res.status;
}

const inParallel = async (n: number, f: (i: number) => Promise<number>) =>
  testDbKind() === "postgres" ? Promise.all(Array.from({ length: n }, (_, i) => f(i))) : Array.from({ length: n }, (_, i) => i).reduce<Promise<number[]>>(async (acc, i) => [...(await acc), await f(i)], Promise.resolve([]));

async function notifications(accountId: string) {
  return rows<{ kind: string; claim_key: string; payload: Record<string, unknown>; deliveries: number }>(
    await database.db.execute(sql`SELECT n.kind, n.claim_key, n.payload, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.notification_id = n.id) AS deliveries
                                    FROM notifications n WHERE n.account_id = ${accountId} ORDER BY n.created_at, n.claim_key`),
  );
}

describe("alert thresholds", () => {
  it("a budget reaching 50, 80 and 100% notifies once each, per period, with a webhook delivery queued in the same statement", async () => {
    const a = await seedAccount(database.db, { credits: "100" });
    await createWebhookEndpoint(database.db, { accountId: a.accountId, url: "http://127.0.0.1:9/hook", allowPrivateNetwork: true });
    const budget = await setBudget(database.db, { accountId: a.accountId, scope: "account", limitCredits: "10", period: "day" }, clock);
    const statuses = await inParallel(40, (i) => call(a.apiKey, i));
    expect(statuses.filter((s) => s === 200).length).toBe(10);
    const all = await notifications(a.accountId);
    // The first Call the budget refused told the account so, once for the period.
    const refusing = all.filter((n) => n.kind === "budget_refusing");
    expect(refusing.map((n) => [n.claim_key, n.deliveries])).toEqual([[`budget_refusing:${budget.budget_id}:2026-11-26T00:00:00.000Z`, 1]]);
    const fired = all.filter((n) => n.kind === "budget_threshold");
    // Concurrent settlements cross them in lock order, which their timestamps need not follow: compare as a set.
    expect(fired.map((n) => [n.kind, n.payload.percent, n.deliveries]).sort((x, y) => Number(x[1]) - Number(y[1]))).toEqual([
      ["budget_threshold", 50, 1],
      ["budget_threshold", 80, 1],
      ["budget_threshold", 100, 1],
    ]);
    expect(fired.map((n) => n.claim_key).sort()).toEqual([50, 80, 100].map((p) => `budget:${budget.budget_id}:2026-11-25T00:00:00Z:${p}`).sort());
    for (const n of fired) expect(n.payload).toMatchObject({ budget_id: budget.budget_id, scope: "account", limit_credits: 10, period: "day", time_zone: "UTC" });

    // The next day is a new period: the thresholds fire again, once.
    clock.set("2026-11-26T00:00:01Z");
    await inParallel(12, (i) => call(a.apiKey, 100 + i));
    const later = await notifications(a.accountId);
    expect(later.filter((n) => n.kind === "budget_threshold").length).toBe(6);
    expect(later.filter((n) => n.kind === "budget_refusing").length).toBe(2);
    await assertLedgerInvariants(database.db, a.accountId);
    clock.set("2026-11-25T12:00:00Z");
  }, 60_000);

  it("the balance falling below the low-balance threshold notifies once per crossing", async () => {
    const a = await seedAccount(database.db, { credits: "10" });
    await setAlertSettings(database.db, { accountId: a.accountId, change: { lowBalanceCredits: "5.5", budgetPercents: [90] } });
    await inParallel(8, (i) => call(a.apiKey, i));
    let fired = await notifications(a.accountId);
    expect(fired.map((n) => n.kind)).toEqual(["low_balance"]);
    expect(fired[0].payload).toMatchObject({ threshold_credits: 5.5, balance_credits: 5 });
    // Credits granted lift the balance above the threshold; the next crossing is a new alert.
    await grantCredits(database.db, { accountId: a.accountId, amount: "10", type: "payment_recharge" });
    await inParallel(8, (i) => call(a.apiKey, 50 + i));
    fired = await notifications(a.accountId);
    expect(fired.map((n) => n.kind)).toEqual(["low_balance", "low_balance"]);
    expect(fired[1].payload).toMatchObject({ balance_credits: 5 });
    await assertLedgerInvariants(database.db, a.accountId);
  }, 60_000);
});

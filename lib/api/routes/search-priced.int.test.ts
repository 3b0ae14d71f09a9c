// A deployment that prices Discover (SEARCH_PRICE_CREDITS): read once per process, so this file
// sets it before the first request.
process.env.SEARCH_PRICE_CREDITS = "0.4";

import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { creditsLedger, searches, usageEvents } from "../../db/schema";
import type { Database } from "../../db/types";
import { setBudget } from "../../billing/budgets";
import { assertLedgerInvariants } from "../../testing/invariants";

let database: Database;
let server: TestServer;
let seed: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  seed = await seedAccount(database.db, { credits: "1" });
});

const search = (query: string) =>
  fetch(`${server.url}/api/v1/search`, {
    method: "POST",
    headers: { ...bearer(seed.apiKey), "content-type": "application/json" },
    body: JSON.stringify({ query, limit: 3 }),
  });

describe("priced Discover", () => {
  it("debits each search with a consume_tool_search ledger row linked to its usage event", async () => {
    const res = await search("compound interest");
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ remaining_credits: 0.6, error_message: null });
    expect(body.total).toBeGreaterThan(0);
    const [event] = await database.db.select().from(usageEvents).where(eq(usageEvents.searchId, body.search_id));
    expect(event).toMatchObject({ eventType: "search", success: true, chargeOutcome: "charged", settledAmountCredits: "0.400000" });
    const [ledger] = await database.db.select().from(creditsLedger).where(eq(creditsLedger.id, event.creditsLedgerEntryId ?? ""));
    expect(ledger).toMatchObject({
      accountId: seed.accountId,
      entryType: "consume_tool_search",
      amountCredits: "-0.400000",
      sourceRefType: "search",
      sourceRefId: body.search_id,
      usageEventId: event.id,
      balanceBefore: "1.000000",
      balanceAfter: "0.600000",
    });
  });

  it("answers 402 with an empty search response once credits are short, charging nothing", async () => {
    expect((await search("loan payment")).status).toBe(200);
    const res = await search("roman numerals");
    const body = await res.json();
    expect(res.status).toBe(402);
    expect(body).toMatchObject({ query: "roman numerals", total: 0, results: [], remaining_credits: 0.2 });
    expect(body.error_message).toMatch(/insufficient credits/i);
    const [row] = await database.db.select().from(searches).where(eq(searches.id, body.search_id));
    expect(row.resultIds).toEqual([]);
    const [event] = await database.db.select().from(usageEvents).where(eq(usageEvents.searchId, body.search_id));
    expect(event).toMatchObject({ success: false, chargeOutcome: "failed_not_charged", creditsLedgerEntryId: null });
    const ledger = await database.db.select().from(creditsLedger).where(eq(creditsLedger.accountId, seed.accountId));
    expect(ledger.filter((l) => l.entryType === "consume_tool_search")).toHaveLength(2);
  });

  it("refuses a search that would cross a budget (402, naming it), and counts the searches it allowed", async () => {
    const a = await seedAccount(database.db, { credits: "10" });
    const budget = await setBudget(database.db, { accountId: a.accountId, scope: "api_key", scopeId: a.apiKeyId, limitCredits: "1", period: "day" });
    const searchAs = (key: string) =>
      fetch(`${server.url}/api/v1/search`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify({ query: "compound interest", limit: 3 }) });
    expect((await searchAs(a.apiKey)).status).toBe(200);
    expect((await searchAs(a.apiKey)).status).toBe(200);
    const refused = await searchAs(a.apiKey);
    expect(refused.status).toBe(402);
    const body = await refused.json();
    expect(body).toMatchObject({ total: 0, results: [], remaining_credits: 9.2 });
    expect(body.error_message).toContain(`budget ${budget.budget_id} of 1 credit has 0.2 credits left, and this search may cost 0.4 credits`);
    const [event] = await database.db.select().from(usageEvents).where(eq(usageEvents.searchId, body.search_id));
    expect(event).toMatchObject({ success: false, chargeOutcome: "failed_not_charged", creditsLedgerEntryId: null });
    await assertLedgerInvariants(database.db, a.accountId);
  });
});

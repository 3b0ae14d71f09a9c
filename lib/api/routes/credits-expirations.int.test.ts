import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { bearer, seedAccount } from "../../testing/fixtures";
import { importDemoCatalog } from "../../testing/catalog";
import { assertLedgerInvariants } from "../../testing/invariants";
import { grantCredits } from "../../billing/grant-credits";
import { expireCreditGrants } from "../../billing/expire-grants";
import { rows } from "../../db/row-sql";
import { ManualClock } from "../../clock";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
});

const DAY = 24 * 3_600_000;
const get = async (token?: string) => {
  const res = await fetch(`${server.url}/api/v1/auth/credits/expirations`, { headers: token ? bearer(token) : {} });
  return { status: res.status, body: await res.json() };
};

describe("GET /api/v1/auth/credits/expirations", () => {
  it("lists the account's expiring grants with what is left, soonest first, to an API key and to a user", async () => {
    const seed = await seedAccount(database.db, { credits: "5" });
    const later = new Date(Date.now() + 20 * DAY);
    const sooner = new Date(Date.now() + 3 * DAY);
    const a = await grantCredits(database.db, { accountId: seed.accountId, amount: "8", type: "payment_recharge", expiresAt: later });
    const b = await grantCredits(database.db, { accountId: seed.accountId, amount: "2.5", type: "invitation_reward", expiresAt: sooner });
    const expected = {
      items: [
        { grant_id: b.ledger_entry_id, kind: "reward", amount_credits: 2.5, remaining_credits: 2.5, expires_at: sooner.toISOString() },
        { grant_id: a.ledger_entry_id, kind: "paid", amount_credits: 8, remaining_credits: 8, expires_at: later.toISOString() },
      ],
      has_more: false,
    };
    for (const token of [seed.apiKey, seed.accessToken]) {
      const res = await get(token);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "success", status_code: 0, data: expected });
    }
  });

  it("is empty for an account without expiring credits, shows no other account's, and needs a credential", async () => {
    const other = await seedAccount(database.db, { credits: "5" });
    expect((await get(other.apiKey)).body.data).toEqual({ items: [], has_more: false });
    expect((await get()).status).toBe(401);
    expect((await get("tg_not_a_key")).status).toBe(401);
  });

  it("a Call draws the expiring bonus first: the listing shows what is left; an expired grant leaves the list", async () => {
    const seed = await seedAccount(database.db);
    await grantCredits(database.db, { accountId: seed.accountId, amount: "10", type: "payment_recharge" });
    const clock = new ManualClock(new Date());
    const lot = await grantCredits(database.db, { accountId: seed.accountId, amount: "3", type: "welcome_bonus", expiresAt: new Date(clock.now().getTime() + DAY) }, clock);
    const call = await fetch(`${server.url}/api/v1/tools/execute`, {
      method: "POST",
      headers: { ...bearer(seed.apiKey), "Content-Type": "application/json" },
      body: JSON.stringify({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } }),
    });
    const body = (await call.json()) as { execution_id: string; execution_outcome: { charge_outcome: string } };
    expect(body.execution_outcome.charge_outcome).toBe("charged");
    const consumed = rows<{ ledger_metadata: Record<string, unknown> }>(
      await database.db.execute(sql`SELECT ledger_metadata FROM credits_ledger WHERE execution_id = ${body.execution_id}`),
    )[0];
    expect(consumed.ledger_metadata).toMatchObject({ grant_lots: { [lot.ledger_entry_id]: "1.000000" } });
    expect((await get(seed.apiKey)).body.data.items).toEqual([expect.objectContaining({ grant_id: lot.ledger_entry_id, amount_credits: 3, remaining_credits: 2 })]);

    clock.advance(2 * DAY);
    await expireCreditGrants(database.db, clock);
    expect((await get(seed.apiKey)).body.data.items).toEqual([]);
    // The Overview's reconciliation reads expiries apart from consumption: the ledger's `expiry` scope.
    const ledger = await fetch(`${server.url}/api/v1/auth/credits/ledger?scope=expiry&summary=true`, { headers: bearer(seed.accessToken) });
    const expired = (await ledger.json()).data;
    expect(expired.items).toEqual([expect.objectContaining({ entry_type: "expire_welcome_bonus", amount_credits: -2 })]);
    expect(expired.summary).toMatchObject({ consumed_credits: 2, granted_credits: 0 });
    await assertLedgerInvariants(database.db, seed.accountId);
  });

  it("is described in the OpenAPI document for API keys and users", async () => {
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    expect(doc.paths["/auth/credits/expirations"].get.security).toEqual([{ ApiKeyAuth: [] }, { OAuth2: ["ledger:read"] }]);
  });
});

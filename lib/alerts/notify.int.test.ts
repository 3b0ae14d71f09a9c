import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { notifications, webhookDeliveries, webhookEndpoints } from "../db/schema";
import { rows } from "../db/row-sql";
import { notify, notifyCtes } from "./notify-sql";

const database = await createTestDatabase();
const { db } = database;

async function endpoint(accountId: string, id: string, events: string[] = [], disabled = false) {
  await db.insert(webhookEndpoints).values({ id, accountId, url: "https://example.com/hook", events, secretCiphertext: "x", disabledAt: disabled ? new Date() : null });
}

describe("notify", () => {
  it("claims a threshold once: the same claim key twice gives one notification and one delivery per subscribed live endpoint", async () => {
    const { accountId } = await seedAccount(db);
    await endpoint(accountId, `whe_all_${accountId}`);
    await endpoint(accountId, `whe_low_${accountId}`, ["balance.low"]);
    await endpoint(accountId, `whe_budget_${accountId}`, ["budget.threshold"]);
    await endpoint(accountId, `whe_off_${accountId}`, [], true);
    const claimKey = `low_balance:${accountId}:1`;
    const first = await notify(db, { accountId, kind: "low_balance", claimKey, payload: { balance_credits: "4.5", threshold_credits: "5" } });
    const second = await notify(db, { accountId, kind: "low_balance", claimKey, payload: { balance_credits: "4", threshold_credits: "5" } });
    expect(first).toMatchObject({ created: true, deliveries: 2 });
    expect(second).toMatchObject({ created: false, deliveries: 0 });
    expect(await db.select().from(notifications).where(eq(notifications.accountId, accountId))).toHaveLength(1);
    const deliveries = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, accountId));
    expect(deliveries.map((d) => d.endpointId).sort()).toEqual([`whe_all_${accountId}`, `whe_low_${accountId}`]);
    const d = deliveries[0];
    expect(d.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(d.eventType).toBe("balance.low");
    expect(d.status).toBe("pending");
    expect(d.payload).toMatchObject({
      type: "balance.low",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      data: { balance_credits: "4.5", threshold_credits: "5", notification_id: first.notificationId, account_id: accountId },
    });
  });

  it("embeds in a larger statement: the outer query need not read ntf or whd", async () => {
    const { accountId } = await seedAccount(db);
    await endpoint(accountId, `whe_e_${accountId}`);
    const result = await db.execute(sql`
      WITH src AS (SELECT ${accountId}::text AS account_id, 'budget_threshold'::text AS kind, ${`b:${accountId}`}::text AS claim_key, '{"percent":80}'::jsonb AS payload),
      ${sql.raw(notifyCtes("src"))}
      SELECT 1 AS one`);
    expect(rows(result)).toEqual([{ one: 1 }]);
    const deliveries = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, accountId));
    expect(deliveries.map((d) => d.eventType)).toEqual(["budget.threshold"]);
  });
});

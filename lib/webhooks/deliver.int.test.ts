import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createTestDatabase, testDbKind } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "../testing/webhook-receiver";
import { openDatabase } from "../db/open";
import { ManualClock } from "../clock";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema";
import { notify } from "../alerts/notify-sql";
import { createWebhookEndpoint, removeWebhookEndpoint } from "./endpoints";
import { claimDueDeliveries, deliverDue, DEFAULT_BACKOFF_MS, RETRY_WINDOW_MS, startWebhookWorker } from "./deliver";
import { listWebhookDeliveries, resendWebhookDelivery } from "./deliveries";

const database = await createTestDatabase();
const { db } = database;
let receiver: WebhookReceiver;
let seq = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

/** An account with one endpoint on the local receiver (a private address: allowed by the operator's flag). */
async function accountWithEndpoint(events: string[] = []) {
  const account = await seedAccount(db);
  const endpoint = await createWebhookEndpoint(db, { accountId: account.accountId, url: `${receiver.url}/hooks/${account.accountId}`, events, allowPrivateNetwork: true });
  return { ...account, endpoint };
}

const lowBalance = (accountId: string) =>
  notify(db, { accountId, kind: "low_balance", claimKey: `low_balance:${accountId}:${++seq}`, payload: { balance_credits: "4.5", threshold_credits: "5" } });

const deliveryOf = async (accountId: string) => (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, accountId)))[0];
const receivedBy = (accountId: string) => receiver.received.filter((r) => r.path === `/hooks/${accountId}`);

/** A clock that starts now (deliveries are queued at the database's now()). */
const clockNow = () => new ManualClock(new Date(Date.now() + 1_000));

describe("webhook delivery", () => {
  it("a delivery is signed per Standard Webhooks and verifies with the standardwebhooks package", async () => {
    const a = await accountWithEndpoint();
    const { notificationId } = await lowBalance(a.accountId);
    expect(await deliverDue(db)).toBeGreaterThanOrEqual(1);
    const [got] = receivedBy(a.accountId);
    const delivery = await deliveryOf(a.accountId);
    expect(got.headers["webhook-id"]).toBe(delivery.id);
    expect(got.headers["content-type"]).toBe("application/json");
    const verified = new Webhook(a.endpoint.secret).verify(got.body, got.headers) as Record<string, unknown>;
    expect(verified).toMatchObject({ type: "balance.low", data: { balance_credits: "4.5", threshold_credits: "5", notification_id: notificationId, account_id: a.accountId } });
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString("base64")}`).verify(got.body, got.headers)).toThrow();
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200, lastError: null });
    const attempts = await db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery.id));
    expect(attempts).toMatchObject([{ statusCode: 200, error: null }]);
  });

  it("a 500 is retried with backoff (5 s, then 30 s) under the same webhook-id until a 2xx", async () => {
    const a = await accountWithEndpoint();
    const clock = clockNow();
    await lowBalance(a.accountId);
    let answers = [500, 500, 204];
    receiver.respond = (req) => (req.path === `/hooks/${a.accountId}` ? (answers.shift() ?? 200) : 200);
    try {
      expect(await deliverDue(db, { clock })).toBe(1);
      let d = await deliveryOf(a.accountId);
      expect(d).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 500, lastError: "HTTP 500: receiver says 500" });
      expect(d.nextAttemptAt.getTime() - clock.now().getTime()).toBe(DEFAULT_BACKOFF_MS[0]);
      // Not due before its time.
      clock.advance(DEFAULT_BACKOFF_MS[0] - 1_000);
      expect(await deliverDue(db, { clock })).toBe(0);
      clock.advance(1_000);
      expect(await deliverDue(db, { clock })).toBe(1);
      d = await deliveryOf(a.accountId);
      expect(d.nextAttemptAt.getTime() - clock.now().getTime()).toBe(DEFAULT_BACKOFF_MS[1]);
      clock.advance(DEFAULT_BACKOFF_MS[1]);
      expect(await deliverDue(db, { clock })).toBe(1);
      d = await deliveryOf(a.accountId);
      expect(d).toMatchObject({ status: "delivered", attempts: 3, lastStatusCode: 204, lastError: null });
      const got = receivedBy(a.accountId);
      expect(got.map((r) => r.headers["webhook-id"])).toEqual([d.id, d.id, d.id]);
      const [listed] = await listWebhookDeliveries(db, { accountId: a.accountId, endpointId: a.endpoint.id });
      expect(listed.attempt_log.map((x) => x.status_code)).toEqual([204, 500, 500]);
      answers = [];
    } finally {
      receiver.respond = () => 200;
    }
  });

  it("a receiver that keeps failing is retried for 24 h, then the delivery fails; a resend gets one more attempt", async () => {
    const a = await accountWithEndpoint();
    const clock = clockNow();
    await lowBalance(a.accountId);
    const created = (await deliveryOf(a.accountId)).createdAt.getTime();
    let failing = true;
    receiver.respond = (req) => (req.path === `/hooks/${a.accountId}` && failing ? 503 : 200);
    try {
      let d = await deliveryOf(a.accountId);
      const attemptTimes: number[] = [];
      while (d.status === "pending") {
        if (d.nextAttemptAt.getTime() > clock.now().getTime()) clock.set(d.nextAttemptAt);
        let sent = await deliverDue(db, { clock });
        // The window's end has microseconds; a Date only milliseconds.
        if (sent === 0) {
          clock.advance(1);
          sent = await deliverDue(db, { clock });
        }
        expect(sent).toBe(1);
        attemptTimes.push(clock.now().getTime());
        d = await deliveryOf(a.accountId);
      }
      expect(d).toMatchObject({ status: "failed", lastStatusCode: 503 });
      // Backoff grows, the last attempt is at the end of the window, and none comes after it.
      const gaps = attemptTimes.slice(1).map((t, i) => t - attemptTimes[i]);
      expect(gaps.slice(0, 4)).toEqual(DEFAULT_BACKOFF_MS.slice(0, 4));
      expect(attemptTimes.at(-1)! - created).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
      expect(attemptTimes.at(-1)! - created).toBeLessThanOrEqual(RETRY_WINDOW_MS + 1);
      expect(receivedBy(a.accountId)).toHaveLength(d.attempts);
      clock.advance(DEFAULT_BACKOFF_MS.at(-1)!);
      expect(await deliverDue(db, { clock })).toBe(0);

      failing = false;
      const resent = await resendWebhookDelivery(db, { id: d.id, accountId: a.accountId, clock });
      expect(resent).toMatchObject({ status: "pending" });
      expect(await deliverDue(db, { clock })).toBe(1);
      expect(await deliveryOf(a.accountId)).toMatchObject({ status: "delivered", attempts: d.attempts + 1, lastStatusCode: 200 });
      expect(receivedBy(a.accountId).at(-1)!.headers["webhook-id"]).toBe(d.id);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it("a worker that dies between claim and send leaves the delivery pending: it is sent once its lease ends", async () => {
    const a = await accountWithEndpoint();
    const clock = clockNow();
    await lowBalance(a.accountId);
    const leaseMs = 30_000;
    const claimed = await claimDueDeliveries(db, 100, { clock, leaseMs });
    expect(claimed.map((c) => c.endpoint_id)).toContain(a.endpoint.id);
    // ... and the process is gone. Meanwhile no other worker takes it.
    expect(await deliverDue(db, { clock, leaseMs })).toBe(0);
    expect(await deliveryOf(a.accountId)).toMatchObject({ status: "pending", attempts: 0 });
    clock.advance(leaseMs);
    expect(await deliverDue(db, { clock, leaseMs })).toBe(1);
    expect(await deliveryOf(a.accountId)).toMatchObject({ status: "delivered", attempts: 1 });
    expect(receivedBy(a.accountId)).toHaveLength(1);
  });

  it("a removed endpoint receives nothing more: its pending deliveries fail and cannot be resent", async () => {
    const a = await accountWithEndpoint();
    await lowBalance(a.accountId);
    expect(await removeWebhookEndpoint(db, { id: a.endpoint.id, accountId: a.accountId })).toEqual({ id: a.endpoint.id, removed: true, cancelled_deliveries: 1 });
    await deliverDue(db);
    expect(receivedBy(a.accountId)).toHaveLength(0);
    const d = await deliveryOf(a.accountId);
    expect(d).toMatchObject({ status: "failed", lastError: "endpoint removed" });
    await expect(resendWebhookDelivery(db, { id: d.id, accountId: a.accountId })).rejects.toMatchObject({ code: "conflict" });
    // A new notification queues nothing for it.
    expect((await lowBalance(a.accountId)).deliveries).toBe(0);
  });

  it("an endpoint not allowed on private networks is refused at send time too (the socket's lookup is guarded)", async () => {
    const a = await accountWithEndpoint();
    await db.update(webhookEndpoints).set({ allowPrivateNetwork: false }).where(eq(webhookEndpoints.id, a.endpoint.id));
    await lowBalance(a.accountId);
    await deliverDue(db);
    expect(receivedBy(a.accountId)).toHaveLength(0);
    const d = await deliveryOf(a.accountId);
    expect(d).toMatchObject({ status: "pending", lastStatusCode: null });
    expect(d.lastError).toMatch(/refused: 127\.0\.0\.1 is a non-public address/);
  });

  it("another account's delivery cannot be resent or listed (not found)", async () => {
    const a = await accountWithEndpoint();
    const b = await accountWithEndpoint();
    await lowBalance(b.accountId);
    const d = await deliveryOf(b.accountId);
    await expect(resendWebhookDelivery(db, { id: d.id, accountId: a.accountId })).rejects.toMatchObject({ code: "not_found" });
    await expect(listWebhookDeliveries(db, { accountId: a.accountId, endpointId: b.endpoint.id })).rejects.toMatchObject({ code: "not_found" });
    await deliverDue(db);
  });
});

describe("the worker", () => {
  it("is woken by the notification's pg_notify at commit: the webhook arrives without waiting for the poll", async () => {
    const a = await accountWithEndpoint();
    const worker = startWebhookWorker(db, { listen: { kind: database.kind, url: database.url }, pollMs: 60_000 });
    try {
      // Let the listener connect (a connect also triggers a pass).
      await new Promise((r) => setTimeout(r, 300));
      const before = receivedBy(a.accountId).length;
      await lowBalance(a.accountId);
      await receiver.waitFor(receiver.received.length + 1, 5_000);
      expect(receivedBy(a.accountId)).toHaveLength(before + 1);
    } finally {
      await worker.stop();
    }
  });

  it("two workers on separate connections (FOR UPDATE SKIP LOCKED) send each delivery exactly once", async () => {
    const a = await accountWithEndpoint();
    const n = 60;
    for (let i = 0; i < n; i++) await lowBalance(a.accountId);
    const other = testDbKind() === "postgres" ? await openDatabase({ kind: "postgres", url: database.url!, poolSize: 8 }) : undefined;
    const w1 = startWebhookWorker(db, { pollMs: 20, concurrency: 8 });
    const w2 = startWebhookWorker(other?.db ?? db, { pollMs: 20, concurrency: 8 });
    try {
      const deadline = Date.now() + 20_000;
      while (receivedBy(a.accountId).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await w1.stop();
      await w2.stop();
      await other?.close();
    }
    const ids = receivedBy(a.accountId).map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(n);
    expect(new Set(ids).size).toBe(n);
    const rows = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.accountId, a.accountId));
    expect(rows.every((r) => r.status === "delivered" && r.attempts === 1)).toBe(true);
  });
});

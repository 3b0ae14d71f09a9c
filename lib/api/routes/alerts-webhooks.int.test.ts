import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { startWebhookReceiver, type WebhookReceiver } from "../../testing/webhook-receiver";
import { createUser } from "../../accounts/create-user";
import { DEFAULT_SCOPE, issueAccessToken } from "../../auth/jwt";
import { notify } from "../../alerts/notify-sql";
import { createWebhookEndpoint } from "../../webhooks/endpoints";
import { deliverDue } from "../../webhooks/deliver";

type Seeded = Awaited<ReturnType<typeof seedAccount>>;

const database = await createTestDatabase();
const { db } = database;
let server: TestServer;
let receiver: WebhookReceiver;
let owner: Seeded;
let memberToken: string;
let other: Seeded;

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

beforeAll(async () => {
  server = await startTestServer(database);
  receiver = await startWebhookReceiver();
  owner = await seedAccount(db, { credits: "10" });
  const member = await createUser(db, { accountId: owner.accountId, email: `member-${owner.accountId}@example.test`, password: "correct horse battery", role: "member" });
  memberToken = (await issueAccessToken(db, { userId: member.user_id, accountId: owner.accountId, role: "member", scope: DEFAULT_SCOPE, ttlSeconds: 600 })).accessToken;
  other = await seedAccount(db, { credits: "10" });
});
afterAll(() => receiver.close());

describe("alert settings over the API", () => {
  it("the owner changes them, fields left out keep their value; a member reads them but may not change them", async () => {
    expect((await api("GET", "/auth/alerts", memberToken)).body.data).toMatchObject({ low_balance_credits: null, budget_percents: [50, 80, 100], updated_at: null });
    const put = await api("PUT", "/auth/alerts", owner.accessToken, { low_balance_credits: "2.5", budget_percents: [90, 50, 90] });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ account_id: owner.accountId, low_balance_credits: 2.5, budget_percents: [50, 90] });
    expect((await api("PUT", "/auth/alerts", owner.accessToken, { low_balance_credits: null })).body.data).toMatchObject({ low_balance_credits: null, budget_percents: [50, 90] });
    const refused = await api("PUT", "/auth/alerts", memberToken, { low_balance_credits: 1 });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: "failure", status_code: 403, message: "Only the account's owner may change alert settings (you are signed in as member)" });
    expect((await api("PUT", "/auth/alerts", owner.accessToken, { budget_percents: [0] })).status).toBe(422);
    expect((await api("PUT", "/auth/alerts", owner.accessToken, { low_balance_credits: -1 })).status).toBe(422);
    // Another account's settings are its own.
    expect((await api("GET", "/auth/alerts", other.accessToken)).body.data).toMatchObject({ account_id: other.accountId, low_balance_credits: null });
  });
});

describe("webhooks over the API", () => {
  it("the owner registers an endpoint (secret shown once), sees a test event's delivery in the log with its status code, and resends it", async () => {
    // The API refuses private addresses: this endpoint on 127.0.0.1 is the operator's (CLI --allow-private-network).
    const refused = await api("POST", "/auth/webhooks", owner.accessToken, { url: `${receiver.url}/own` });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/non-public address/);
    expect((await api("POST", "/auth/webhooks", owner.accessToken, { url: "https://93.184.215.14/x", events: ["nope"] })).status).toBe(422);
    expect((await api("POST", "/auth/webhooks", memberToken, { url: "https://93.184.215.14/x" })).status).toBe(403);

    const created = await api("POST", "/auth/webhooks", owner.accessToken, { url: "https://93.184.215.14/hooks", events: ["balance.low"] });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ id: expect.stringMatching(/^whe_/), events: ["balance.low"], allow_private_network: false, secret: expect.stringMatching(/^whsec_/) });
    const listed = await api("GET", "/auth/webhooks", memberToken);
    expect(listed.body.data.items.map((e: { id: string }) => e.id)).toContain(created.body.data.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.data.secret);
    expect((await api("DELETE", `/auth/webhooks/${created.body.data.id}`, owner.accessToken)).body.data).toEqual({ id: created.body.data.id, removed: true, cancelled_deliveries: 0 });

    const local = await createWebhookEndpoint(db, { accountId: owner.accountId, url: `${receiver.url}/own`, allowPrivateNetwork: true });
    let answer = 503;
    receiver.respond = () => answer;
    const test = await api("POST", `/auth/webhooks/${local.id}/test`, owner.accessToken);
    expect(test.status).toBe(200);
    await deliverDue(db);
    let log = (await api("GET", `/auth/webhooks/${local.id}/deliveries`, memberToken)).body.data.items;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ id: test.body.data.delivery_id, event_type: "webhook.test", status: "pending", attempts: 1, last_status_code: 503 });
    expect(log[0].attempt_log).toMatchObject([{ status_code: 503, error: "HTTP 503: receiver says 503" }]);

    answer = 200;
    expect((await api("POST", `/auth/webhook-deliveries/${log[0].id}/resend`, memberToken)).status).toBe(403);
    const resent = await api("POST", `/auth/webhook-deliveries/${log[0].id}/resend`, owner.accessToken);
    expect(resent.body.data).toMatchObject({ id: log[0].id, status: "pending" });
    await deliverDue(db);
    log = (await api("GET", `/auth/webhooks/${local.id}/deliveries`, owner.accessToken)).body.data.items;
    expect(log[0]).toMatchObject({ status: "delivered", attempts: 2, last_status_code: 200 });
    expect(log[0].attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([200, 503]);
    const got = receiver.received.filter((r) => r.path === "/own");
    expect(got.map((r) => r.headers["webhook-id"])).toEqual([log[0].id, log[0].id]);
    expect(new Webhook(local.secret).verify(got[1].body, got[1].headers)).toMatchObject({ type: "webhook.test", data: { endpoint_id: local.id } });
    receiver.respond = () => 200;

    // The endpoint summary shows the last status code.
    const summary = (await api("GET", "/auth/webhooks", owner.accessToken)).body.data.items.find((e: { id: string }) => e.id === local.id);
    expect(summary).toMatchObject({ last_status_code: 200, pending_count: 0, failed_count: 0 });
  });

  it("another account's endpoint and delivery ids are not found, and change nothing", async () => {
    const theirs = await createWebhookEndpoint(db, { accountId: other.accountId, url: `${receiver.url}/other`, allowPrivateNetwork: true });
    await notify(db, { accountId: other.accountId, kind: "low_balance", claimKey: `low:${other.accountId}`, payload: {} });
    const [delivery] = (await api("GET", `/auth/webhooks/${theirs.id}/deliveries`, other.accessToken)).body.data.items;
    for (const [method, path] of [
      ["GET", `/auth/webhooks/${theirs.id}/deliveries`],
      ["DELETE", `/auth/webhooks/${theirs.id}`],
      ["POST", `/auth/webhooks/${theirs.id}/test`],
      ["POST", `/auth/webhook-deliveries/${delivery.id}/resend`],
    ]) {
      const res = await api(method, path, owner.accessToken);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(other.accountId);
    }
    expect((await api("GET", "/auth/webhooks", other.accessToken)).body.data.items.map((e: { id: string }) => e.id)).toEqual([theirs.id]);
    await deliverDue(db);
  });
});

describe("notifications over the API", () => {
  it("lists newest first with the unread count; marking read works by id or all, and ignores another account's ids", async () => {
    const a = await seedAccount(db);
    for (const i of [1, 2, 3]) await notify(db, { accountId: a.accountId, kind: "budget_threshold", claimKey: `b:${a.accountId}:${i}`, payload: { percent: i * 25 } });
    const theirs = await notify(db, { accountId: other.accountId, kind: "low_balance", claimKey: `low2:${other.accountId}`, payload: {} });
    let list = (await api("GET", "/auth/notifications", a.accessToken)).body.data;
    expect(list.unread_count).toBe(3);
    expect(list.items.map((n: { payload: { percent: number } }) => n.payload.percent)).toEqual([75, 50, 25]);
    expect(list.items[0]).toMatchObject({ kind: "budget_threshold", event_type: "budget.threshold", read_at: null });
    expect((await api("POST", "/auth/notifications/read", a.accessToken, { notification_ids: [list.items[0].id, theirs.notificationId] })).body.data).toEqual({ marked: 1 });
    list = (await api("GET", "/auth/notifications?limit=2", a.accessToken)).body.data;
    expect(list).toMatchObject({ unread_count: 2 });
    expect(list.items).toHaveLength(2);
    expect((await api("POST", "/auth/notifications/read", a.accessToken, {})).body.data).toEqual({ marked: 2 });
    expect((await api("GET", "/auth/notifications", a.accessToken)).body.data.unread_count).toBe(0);
    expect((await api("GET", "/auth/notifications", other.accessToken)).body.data.unread_count).toBeGreaterThanOrEqual(1);
  });
});

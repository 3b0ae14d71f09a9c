import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { generate } from "otplib";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, callApi, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { operationsAccepting, operationsWithAccountId } from "../testing/openapi-ids";
import type { OpenApiDocument } from "../testing/openapi-arbitrary";
import { createUser } from "../accounts/create-user";
import { DEFAULT_SCOPE, issueAccessToken } from "../auth/jwt";
import { connections, supportAccessLog, tools } from "../db/schema";
import { seal } from "../vault/vault";
import { tokenContext } from "../connections/connections";
import { createWebhookEndpoint } from "../webhooks/endpoints";
import { inviteMember } from "../accounts/members";
import { confirmEnrolment, disableTwoFactor, setRequireTwoFactor, startEnrolment } from "../accounts/two-factor";
import { sendTestEvent } from "../webhooks/test-event";
import type { Database } from "../db/types";
import { configurePayments, startFakeStripe, type FakeStripe } from "../testing/fake-stripe";

/**
 * Roles on the API. Owner and member hold the same rights over their own account, except what
 * limits the account's spending or where its alerts go (budgets, alert settings, webhooks: owner only); support alone may name another account (`account_id`) and every such
 * read is recorded. A revoked API key fails at once. The operation lists come from the published
 * OpenAPI description, so a new operation is covered (or fails here until it is).
 */

type Seeded = Awaited<ReturnType<typeof seedAccount>>;

const COMPOUND = "builtin.finance.compound_interest";
const COMPOUND_PARAMS = { principal: 100, annual_rate_percent: 5, years: 2 };

let database: Database;
let server: TestServer;
let doc: OpenApiDocument;
let owner: Seeded;
let memberToken: string;
let memberId: string;
let other: Seeded;
let support: Seeded;
/** The owner's account's Call and its audit rows. */
const own = {} as { executionId: string; usageEventId: string; ledgerEntryId: string; statementMonth: string; paymentId: string };
/** The other account's Call and its audit rows, which support reads. */
const theirs = {} as { executionId: string; usageEventId: string; ledgerEntryId: string; statementMonth: string; paymentId: string };
/** Stripe's stand-in: payments are on in this file (lib/testing/fake-stripe.ts). */
let fakeStripe: FakeStripe | undefined;
let restorePayments: (() => void) | undefined;

afterAll(async () => {
  restorePayments?.();
  await fakeStripe?.close();
});

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

/** A pending payment of the account, started by its owner through the API. */
async function startedPayment(seeded: Seeded): Promise<string> {
  const started = await api("POST", "/auth/billing/checkout", seeded.accessToken, { pack: 100 });
  expect(started.status).toBe(201);
  return started.body.data.payment_id;
}

async function chargedCall(seeded: Seeded) {
  const call = await api("POST", "/tools/execute", seeded.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS });
  expect(call.body.success).toBe(true);
  const event = (await api("GET", `/auth/usage/history/v2?execution_id=${call.body.execution_id}`, seeded.accessToken)).body.data.items[0];
  // A month the account has a statement for (its ledger starts at its seeding): the newest listed, the current one.
  const months = (await api("GET", "/auth/credits/statements", seeded.accessToken)).body.data.items as { month: string }[];
  expect(months.length).toBeGreaterThan(0);
  return { executionId: call.body.execution_id as string, usageEventId: event.id as string, ledgerEntryId: event.credits_ledger_entry_id as string, statementMonth: months[0].month };
}

/** The owner's account budget (the owner sets it whichever role is tested). */
const createBudget = async () => (await api("PUT", "/auth/budgets", owner.accessToken, { scope: "account", limit_credits: 1000, period: "month" })).body.data.budget_id as string;

/** Webhook endpoints of the owner's account, made directly (a public address no test reaches), and a delivery to one. */
const createWebhook = async () => (await createWebhookEndpoint(database.db, { accountId: owner.accountId, url: "https://93.184.215.14/roles" })).id;
let sharedWebhook: Promise<string> | undefined;
const ownWebhook = () => (sharedWebhook ??= createWebhook());
const createDelivery = async () => (await sendTestEvent(database.db, { accountId: owner.accountId, endpointId: await ownWebhook() })).delivery_id;

/** People of the owner's account made directly: an invitation to revoke, a member to remove. */
let made = 0;
const newEmail = () => `person-${(made += 1)}-${owner.accountId}@example.test`;
const createInvitation = async () =>
  (await inviteMember(database.db, { accountId: owner.accountId, email: newEmail(), role: "member", invitedBy: owner.userId, actor: { type: "user", id: owner.userId } })).invitation.invitation_id;
const createMember = async () => (await createUser(database.db, { accountId: owner.accountId, email: newEmail(), password: "correct horse battery", role: "member" })).user_id;

/**
 * Two-factor sign-in of the owner or the member (by token), set up directly so that each request
 * below finds the state it needs: off to enrol or confirm, on (with its recovery codes) to turn off.
 */
const PASSWORD = "correct horse battery";
const userOf = (token: string) => (token === memberToken ? memberId : owner.userId);
const recoveryCodes = new Map<string, string[]>();
async function twoFactorOn(userId: string): Promise<string[]> {
  if (!recoveryCodes.has(userId)) {
    const { secret } = await startEnrolment(database.db, { userId, password: PASSWORD });
    const { recovery_codes } = await confirmEnrolment(database.db, { userId, code: await generate({ secret }), actor: { type: "user", id: userId } });
    recoveryCodes.set(userId, recovery_codes);
  }
  return recoveryCodes.get(userId)!;
}
async function twoFactorOff(userId: string) {
  const codes = recoveryCodes.get(userId);
  recoveryCodes.delete(userId);
  if (codes) await disableTwoFactor(database.db, { userId, code: codes[0], actor: { type: "user", id: userId } });
}
/** Starts an enrolment through the API (the tested user's own); returns the secret to confirm it with. */
async function startOwnEnrolment(token: string) {
  const started = await api("POST", "/auth/user/two-factor/enrolment", token, { password: PASSWORD });
  expect(started.status).toBe(200);
  return started.body.data.secret as string;
}

/** A pasted-secret connection of `userId` in the owner's account, made directly. */
let connectionsMade = 0;
const compoundProvider = async () => (await database.db.select({ providerId: tools.providerId }).from(tools).where(eq(tools.id, COMPOUND)))[0].providerId;
async function ownConnection(userId: string): Promise<string> {
  const id = `con_roles_${(connectionsMade += 1)}`;
  const providerId = await compoundProvider();
  await database.db.insert(connections).values({ id, accountId: owner.accountId, userId, providerId, kind: "secret", accessToken: seal("sk_roles", tokenContext("access_token", id)), createdBy: userId });
  return id;
}

const createKey = async (token: string) => (await api("POST", "/auth/api-keys", token, { name: "role test" })).body.data.api_key_id as string;

/**
 * One request per JWT operation, on the caller's own account, and the status owner and member both
 * get. `other` is the token of the other role of the same account (keys are the account's).
 */
const OWN_ACCOUNT: Record<string, { status: number; /** What a member gets where it differs (owner-only operations). */ member?: number; send: (token: string, other: string) => Promise<{ status: number }> }> = {
  "GET /auth/budgets": { status: 200, send: (t) => api("GET", "/auth/budgets", t) },
  "PUT /auth/budgets": { status: 200, member: 403, send: (t) => api("PUT", "/auth/budgets", t, { scope: "account", limit_credits: 1000, period: "month" }) },
  "DELETE /auth/budgets/{budget_id}": { status: 200, member: 403, send: async (t) => api("DELETE", `/auth/budgets/${await createBudget()}`, t) },
  "GET /auth/alerts": { status: 200, send: (t) => api("GET", "/auth/alerts", t) },
  "PUT /auth/alerts": { status: 200, member: 403, send: (t) => api("PUT", "/auth/alerts", t, { low_balance_credits: 5 }) },
  "GET /auth/notifications": { status: 200, send: (t) => api("GET", "/auth/notifications", t) },
  "POST /auth/notifications/read": { status: 200, send: (t) => api("POST", "/auth/notifications/read", t, {}) },
  "GET /auth/webhooks": { status: 200, send: (t) => api("GET", "/auth/webhooks", t) },
  "POST /auth/webhooks": { status: 200, member: 403, send: (t) => api("POST", "/auth/webhooks", t, { url: "https://93.184.215.14/roles" }) },
  "DELETE /auth/webhooks/{endpoint_id}": { status: 200, member: 403, send: async (t) => api("DELETE", `/auth/webhooks/${await createWebhook()}`, t) },
  "POST /auth/webhooks/{endpoint_id}/test": { status: 200, member: 403, send: async (t) => api("POST", `/auth/webhooks/${await ownWebhook()}/test`, t) },
  "GET /auth/webhooks/{endpoint_id}/deliveries": { status: 200, send: async (t) => api("GET", `/auth/webhooks/${await ownWebhook()}/deliveries`, t) },
  "POST /auth/webhook-deliveries/{delivery_id}/resend": { status: 200, member: 403, send: async (t) => api("POST", `/auth/webhook-deliveries/${await createDelivery()}/resend`, t) },
  "GET /auth/credits": { status: 200, send: (t) => api("GET", "/auth/credits", t) },
  "GET /credits": { status: 200, send: (t) => api("GET", "/credits", t) },
  "GET /auth/credits/expirations": { status: 200, send: (t) => api("GET", "/auth/credits/expirations", t) },
  "POST /auth/verify-token": { status: 200, send: (t) => api("POST", "/auth/verify-token", t) },
  // A user's access token is not a Call credential, whatever the role (API key or delegation token only).
  "POST /tools/execute": { status: 401, send: (t) => api("POST", "/tools/execute", t, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS }) },
  "GET /auth/api-keys": { status: 200, send: (t) => api("GET", "/auth/api-keys", t) },
  "POST /auth/api-keys": { status: 200, send: (t) => api("POST", "/auth/api-keys", t, { name: "by role" }) },
  "DELETE /auth/api-keys/{api_key_id}": { status: 200, send: async (t, o) => api("DELETE", `/auth/api-keys/${await createKey(o)}`, t) },
  "GET /auth/usage/history/v2": { status: 200, send: (t) => api("GET", `/auth/usage/history/v2?execution_id=${own.executionId}`, t) },
  "GET /auth/usage/history/v2/summary": { status: 200, send: (t) => api("GET", "/auth/usage/history/v2/summary", t) },
  "GET /auth/usage/history/v2/export": { status: 200, send: (t) => api("GET", "/auth/usage/history/v2/export", t) },
  "GET /auth/usage/history/v2/{event_id}": { status: 200, send: (t) => api("GET", `/auth/usage/history/v2/${own.usageEventId}`, t) },
  "GET /auth/usage/credits-spent": { status: 200, send: (t) => api("GET", "/auth/usage/credits-spent", t) },
  "GET /auth/credits/ledger": { status: 200, send: (t) => api("GET", "/auth/credits/ledger", t) },
  "GET /auth/credits/ledger/export": { status: 200, send: (t) => api("GET", "/auth/credits/ledger/export", t) },
  "GET /auth/credits/ledger/{entry_id}": { status: 200, send: (t) => api("GET", `/auth/credits/ledger/${own.ledgerEntryId}`, t) },
  "GET /auth/credits/ledger-readiness": { status: 200, send: (t) => api("GET", "/auth/credits/ledger-readiness", t) },
  "GET /auth/account/settlement-history": { status: 200, send: (t) => api("GET", "/auth/account/settlement-history", t) },
  "GET /auth/lookup": { status: 200, send: (t) => api("GET", `/auth/lookup?id=${own.executionId}`, t) },
  "GET /auth/runs": { status: 200, send: (t) => api("GET", "/auth/runs", t) },
  // Members and the activity log: every member reads, owners change.
  "GET /auth/account/members": { status: 200, send: (t) => api("GET", "/auth/account/members", t) },
  "GET /auth/account": { status: 200, send: (t) => api("GET", "/auth/account", t) },
  // Support's alone: owners and members of a customer account are refused.
  "GET /auth/accounts": { status: 403, send: (t) => api("GET", `/auth/accounts?email=${encodeURIComponent(`member-${owner.accountId}@example.test`)}`, t) },
  "GET /auth/review-queue": { status: 403, send: (t) => api("GET", "/auth/review-queue", t) },
  "PATCH /auth/account/members/{user_id}": { status: 200, member: 403, send: async (t) => api("PATCH", `/auth/account/members/${await createMember()}`, t, { role: "owner" }) },
  "DELETE /auth/account/members/{user_id}": { status: 200, member: 403, send: async (t) => api("DELETE", `/auth/account/members/${await createMember()}`, t) },
  "GET /auth/account/invitations": { status: 200, send: (t) => api("GET", "/auth/account/invitations", t) },
  "POST /auth/account/invitations": { status: 200, member: 403, send: (t) => api("POST", "/auth/account/invitations", t, { email: newEmail(), role: "member" }) },
  "DELETE /auth/account/invitations/{invitation_id}": { status: 200, member: 403, send: async (t) => api("DELETE", `/auth/account/invitations/${await createInvitation()}`, t) },
  "GET /auth/account/activity": { status: 200, send: (t) => api("GET", "/auth/account/activity", t) },
  "GET /auth/account/activity/export": { status: 200, send: (t) => api("GET", "/auth/account/activity/export", t) },
  // Spend breakdown and monthly statements: audit reads like the usage list and the ledger.
  "GET /auth/usage/breakdown": { status: 200, send: (t) => api("GET", "/auth/usage/breakdown?group_by=tool,api_key", t) },
  "GET /auth/usage/breakdown/export": { status: 200, send: (t) => api("GET", "/auth/usage/breakdown/export?group_by=tool", t) },
  "GET /auth/credits/statements": { status: 200, send: (t) => api("GET", "/auth/credits/statements", t) },
  "GET /auth/credits/statements/{month}": { status: 200, send: (t) => api("GET", `/auth/credits/statements/${own.statementMonth}`, t) },
  "GET /auth/credits/statements/{month}/export": { status: 200, send: (t) => api("GET", `/auth/credits/statements/${own.statementMonth}/export`, t) },
  // Two-factor sign-in: each user manages their own; an owner resets a member's and requires it of all.
  "GET /auth/user/two-factor": { status: 200, send: (t) => api("GET", "/auth/user/two-factor", t) },
  "POST /auth/user/two-factor/enrolment": {
    status: 200,
    send: async (t) => {
      await twoFactorOff(userOf(t));
      return api("POST", "/auth/user/two-factor/enrolment", t, { password: PASSWORD });
    },
  },
  "POST /auth/user/two-factor/confirm": {
    status: 200,
    send: async (t) => {
      await twoFactorOff(userOf(t));
      const secret = await startOwnEnrolment(t);
      const res = await api("POST", "/auth/user/two-factor/confirm", t, { code: await generate({ secret }) });
      if (res.status === 200) recoveryCodes.set(userOf(t), res.body.data.recovery_codes);
      return res;
    },
  },
  "DELETE /auth/user/two-factor": {
    status: 200,
    send: async (t) => {
      const [code] = await twoFactorOn(userOf(t));
      const res = await api("DELETE", "/auth/user/two-factor", t, { code });
      if (res.status === 200) recoveryCodes.delete(userOf(t));
      return res;
    },
  },
  "POST /auth/account/members/{user_id}/two-factor/reset": {
    status: 200,
    member: 403,
    send: async (t) => {
      const id = await createMember();
      await twoFactorOn(id);
      return api("POST", `/auth/account/members/${id}/two-factor/reset`, t);
    },
  },
  "GET /auth/account/security": { status: 200, send: (t) => api("GET", "/auth/account/security", t) },
  "PUT /auth/account/security": {
    status: 200,
    member: 403,
    send: async (t) => {
      // Only an owner who uses two-factor sign-in may require it; the requirement is lifted again after each request.
      await twoFactorOn(owner.userId);
      const res = await api("PUT", "/auth/account/security", t, { require_two_factor: true });
      await setRequireTwoFactor(database.db, { accountId: owner.accountId, ownerId: owner.userId, require: false, actor: { type: "user", id: owner.userId } });
      return res;
    },
  },
  // Connected accounts: each user connects and disconnects their own; owners decide who may share; owners set the region.
  "GET /auth/connections": { status: 200, send: (t) => api("GET", "/auth/connections", t) },
  "POST /auth/connections": { status: 400, send: async (t) => api("POST", "/auth/connections", t, { provider_id: await compoundProvider(), secret: { value: "not connectable" } }) },
  "DELETE /auth/connections/{connection_id}": { status: 200, send: async (t) => api("DELETE", `/auth/connections/${await ownConnection(userOf(t))}`, t) },
  "PUT /auth/connections/sharing": { status: 200, member: 403, send: (t) => api("PUT", "/auth/connections/sharing", t, { sharing: "owners" }) },
  "GET /auth/account/region": { status: 200, send: (t) => api("GET", "/auth/account/region", t) },
  "PUT /auth/account/region": { status: 200, member: 403, send: (t) => api("PUT", "/auth/account/region", t, { region: "eu" }) },
  // Refunds are support's: owner and member read their Call's refunds but cannot refund it.
  "GET /auth/executions/{execution_id}/refunds": { status: 200, send: (t) => api("GET", `/auth/executions/${own.executionId}/refunds`, t) },
  "POST /auth/executions/{execution_id}/refunds": { status: 403, send: (t) => api("POST", `/auth/executions/${own.executionId}/refunds`, t, { reason: "mine" }) },
  // Buying credits: every member reads the account's payments; owners alone buy.
  "GET /auth/billing/config": { status: 200, send: (t) => api("GET", "/auth/billing/config", t) },
  "GET /auth/billing/payments": { status: 200, send: (t) => api("GET", "/auth/billing/payments", t) },
  "GET /auth/billing/payments/{payment_id}": { status: 200, send: (t) => api("GET", `/auth/billing/payments/${own.paymentId}`, t) },
  "GET /auth/billing/reconciliation": { status: 200, send: (t) => api("GET", "/auth/billing/reconciliation?from=2026-01-01&to=2026-02-01", t) },
  "POST /auth/billing/checkout": { status: 201, member: 403, send: (t) => api("POST", "/auth/billing/checkout", t, { pack: 100 }) },
  "GET /auth/billing/auto-topup": { status: 200, send: (t) => api("GET", "/auth/billing/auto-topup", t) },
  "PUT /auth/billing/auto-topup": { status: 200, member: 403, send: (t) => api("PUT", "/auth/billing/auto-topup", t, { threshold_credits: 10, amount_credits: 100, daily_limit_credits: 500 }) },
  "POST /auth/billing/auto-topup/card": { status: 201, member: 403, send: (t) => api("POST", "/auth/billing/auto-topup/card", t) },
  "DELETE /auth/billing/auto-topup/card": { status: 200, member: 403, send: (t) => api("DELETE", "/auth/billing/auto-topup/card", t) },
  // MCP: a user's access token opens a session (its `call` tool refuses it, as REST's Call does).
  "POST /mcp": { status: 200, send: (t) => mcp("POST", t, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "roles", version: "1" } } }) },
  "GET /mcp": { status: 405, send: (t) => mcp("GET", t) },
  // Discover, Inspect, Probe and the provider lists take a user's token with tools:read too.
  "POST /search": { status: 200, send: (t) => api("POST", "/search", t, { query: "compound interest" }) },
  "POST /tools/by-ids": { status: 200, send: (t) => api("POST", "/tools/by-ids", t, { tool_ids: [COMPOUND] }) },
  "POST /tools/probe": { status: 200, send: (t) => api("POST", `/tools/probe?tool_id=${COMPOUND}`, t, { parameters: COMPOUND_PARAMS }) },
  "GET /providers": { status: 200, send: (t) => api("GET", "/providers", t) },
  "GET /providers/categories": { status: 200, send: (t) => api("GET", "/providers/categories", t) },
  "DELETE /mcp": { status: 405, send: (t) => mcp("DELETE", t) },
};

/** A request to the MCP endpoint as an MCP client sends it (both response types accepted). */
async function mcp(method: string, token: string, body?: unknown) {
  const res = await fetch(`${server.url}/api/v1/mcp`, {
    method,
    headers: { ...bearer(token), Accept: "application/json, text/event-stream", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.text();
  return { status: res.status };
}

/** The other account's read through `account_id`, with the ids the operation needs. */
function accountIdRead(op: string, accountId: string): string {
  const path = op
    .split(" ")[1]
    .replace("{event_id}", theirs.usageEventId)
    .replace("{entry_id}", theirs.ledgerEntryId)
    .replace("{month}", theirs.statementMonth)
    .replace("{payment_id}", theirs.paymentId);
  const required: Record<string, string> = {
    "GET /auth/lookup": `id=${theirs.executionId}&`,
    "GET /auth/usage/breakdown": "group_by=tool&",
    "GET /auth/usage/breakdown/export": "group_by=tool&",
    "GET /auth/billing/reconciliation": "from=2026-01-01&to=2026-02-01&",
  };
  return `${path}?${required[op] ?? ""}account_id=${accountId}`;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  server = await startTestServer(database);
  doc = (await (await fetch(`${server.url}/api/v1/openapi.json`)).json()) as OpenApiDocument;
  owner = await seedAccount(database.db, { credits: "10" });
  const member = await createUser(database.db, { accountId: owner.accountId, email: `member-${owner.accountId}@example.test`, password: "correct horse battery", role: "member" });
  memberId = member.user_id;
  memberToken = (await issueAccessToken(database.db, { userId: member.user_id, accountId: owner.accountId, role: "member", scope: DEFAULT_SCOPE, ttlSeconds: 600 })).accessToken;
  other = await seedAccount(database.db, { credits: "10" });
  support = await seedAccount(database.db, { role: "support" });
  Object.assign(own, await chargedCall(owner));
  Object.assign(theirs, await chargedCall(other));
  fakeStripe = await startFakeStripe();
  restorePayments = configurePayments(fakeStripe);
  own.paymentId = await startedPayment(owner);
  theirs.paymentId = await startedPayment(other);
});

describe("owner and member", () => {
  it("the table has a request for every operation that takes an OAuth token", () => {
    expect(Object.keys(OWN_ACCOUNT).sort()).toEqual([...operationsAccepting(doc, "OAuth2"), ...operationsAccepting(doc, "OAuth2Delegation")].sort());
  });

  it("the document says Call takes a delegation token, not a user's own token (which gets 401 whatever its scopes)", () => {
    expect(operationsAccepting(doc, "OAuth2Delegation")).toEqual(["POST /tools/execute"]);
    expect(operationsAccepting(doc, "OAuth2")).not.toContain("POST /tools/execute");
    expect(OWN_ACCOUNT["POST /tools/execute"].status).toBe(401);
  });

  it.for(Object.keys(OWN_ACCOUNT))("%s: a member gets what the owner gets on their account (or 403 where owner-only)", async (op) => {
    const { status, member, send } = OWN_ACCOUNT[op];
    expect((await send(owner.accessToken, memberToken)).status).toBe(status);
    expect((await send(memberToken, owner.accessToken)).status).toBe(member ?? status);
  });

  it("the token says which role it carries", async () => {
    expect((await api("POST", "/auth/verify-token", memberToken)).body.data).toMatchObject({ role: "member", account_id: owner.accountId });
    expect((await api("POST", "/auth/verify-token", owner.accessToken)).body.data).toMatchObject({ role: "owner", account_id: owner.accountId });
  });
});

describe("account_id: support only", () => {
  it("owner and member get 403 on every operation that takes account_id; support reads, and each read is in support_access_log", async () => {
    const ops = operationsWithAccountId(doc);
    expect(ops.length).toBeGreaterThanOrEqual(10);
    for (const op of ops) {
      for (const token of [owner.accessToken, memberToken]) {
        const res = await api("GET", accountIdRead(op, other.accountId), token);
        expect(res.status, `${op} as a non-support user`).toBe(403);
        expect(JSON.stringify(res.body)).not.toContain(theirs.executionId);
      }
      const res = await api("GET", accountIdRead(op, other.accountId), support.accessToken);
      expect(res.status, `${op} as support`).toBe(200);
    }
    const logged = await database.db
      .select({ resource: supportAccessLog.resource })
      .from(supportAccessLog)
      .where(and(eq(supportAccessLog.userId, support.userId), eq(supportAccessLog.targetAccountId, other.accountId)));
    // The log names the route as the router does (`/ledger/:entry_id`).
    expect(logged.map((r) => r.resource.replace(/:(\w+)/g, "{$1}")).sort()).toEqual(ops);
  });

  it("support's reads of its own account are not logged as support access", async () => {
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(supportAccessLog).where(eq(supportAccessLog.userId, support.userId));
    expect((await api("GET", "/auth/credits/ledger", support.accessToken)).status).toBe(200);
    const after = await database.db.select({ n: sql<number>`count(*)::int` }).from(supportAccessLog).where(eq(supportAccessLog.userId, support.userId));
    expect(after[0].n).toBe(before[0].n);
  });
});

describe("a revoked API key", () => {
  it("answers 401 at once on every operation that takes an API key", async () => {
    const created = (await api("POST", "/auth/api-keys", owner.accessToken, { name: "to revoke" })).body.data as { api_key_id: string; api_key: string };
    // Used first, so this instance holds it in its key cache: revocation must not wait for that to expire.
    expect((await api("GET", "/auth/credits", created.api_key)).status).toBe(200);
    expect((await api("DELETE", `/auth/api-keys/${created.api_key_id}`, owner.accessToken)).status).toBe(200);
    const ops = operationsAccepting(doc, "ApiKeyAuth");
    expect(ops).toContain("POST /tools/execute");
    for (const op of ops) {
      const [method, path] = op.split(" ");
      const res = await api(method, path, created.api_key, method === "POST" ? {} : undefined);
      expect(res.status, op).toBe(401);
      expect(res.body).toMatchObject({ status: "failure", status_code: 401, message: "Unknown or revoked API key" });
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
  });
});

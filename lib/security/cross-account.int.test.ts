import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { generate } from "otplib";
import { createTestDatabase } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { writeReviewCase } from "../testing/review-case";
import { parseCsv } from "../testing/csv";
import { form, oauthFailure, registerClient, startOAuthHarness, type OAuthHarness, type RegisteredClient } from "../testing/oauth";
import { idTakingOperations } from "../testing/openapi-ids";
import { notify } from "../alerts/notify-sql";
import { createWebhookEndpoint } from "../webhooks/endpoints";
import { sendTestEvent } from "../webhooks/test-event";
import type { OpenApiDocument } from "../testing/openapi-arbitrary";
import { decideDeviceAuthorization } from "../oauth/device";
import type { Database } from "../db/types";
import { removeBudget, setBudget } from "../billing/budgets";
import { inviteMember } from "../accounts/members";
import { createUser } from "../accounts/create-user";
import { confirmEnrolment, getTwoFactorStatus, startEnrolment } from "../accounts/two-factor";
import { issueAccessToken } from "../auth/jwt";
import { apiAudience } from "../auth/issuer";
import { ACCESS_TOKEN_TYPE } from "../oauth/token-exchange";
import { connections, tools } from "../db/schema";
import { seal } from "../vault/vault";
import { tokenContext } from "../connections/connections";
import { configurePayments, startFakeStripe, type FakeStripe } from "../testing/fake-stripe";

/**
 * OWASP API1 (broken object level authorisation): for every operation of the published OpenAPI
 * description that takes an id, another account's id gets the caller nothing of that account —
 * 404 for a read of one object, an empty answer for a filter, 403 for `account_id` (support only,
 * the same answer whether the account exists or not). The table below is keyed by operation and
 * compared with the description, so a new id-taking operation (or a new id parameter) fails this
 * file until it has a row. Rows that support may read show that it still can: the 404s are not a
 * broken route.
 */

type Seeded = Awaited<ReturnType<typeof seedAccount>>;
type Json = ReturnType<typeof JSON.parse>;

interface Row {
  /** The operation's id inputs, as the description lists them (`path:event_id`, `query:account_id`, `body:search_id`). */
  ids: string[];
  /** What another account's id gets. */
  answer: string;
  check: () => Promise<void>;
}

const COMPOUND = "builtin.finance.compound_interest";
const COMPOUND_PARAMS = { principal: 100, annual_rate_percent: 5, years: 2 };
/** Text only account B's own data holds (its search query): never in an answer to another account. */
const B_MARKER = "bzqxsecretmarker";
const B_SESSION = "sess-account-b";
const B_IDEMPOTENCY_KEY = "idem-account-b-1";
/** The agent run of B's delegated Call (a delegation token's run_id). */
const B_RUN = "run-account-b";
/** B's delegated Call's tool (1 credit): A never calls it. */
const LOAN = "builtin.finance.loan_payment";
const LOAN_PARAMS = { principal: 1000, annual_rate_percent: 5, months: 12 };
const NO_ACCOUNT = "acc_doesnotexist0000000000";

let database: Database;
let h: OAuthHarness;
let doc: OpenApiDocument;
/** The caller, the account whose ids it presents, a third account that plants B's ids in its own requests, a support user. */
let a: Seeded;
let b: Seeded;
let planter: Seeded;
let support: Seeded;
let cliX: RegisteredClient;
let cliY: RegisteredClient;
/** An agent runtime (a server-wide confidential client) through which B made a delegated Call. */
let runtime: RegisteredClient;
/** The shared catalog's provider of COMPOUND, which A and B both called. */
let compoundProvider: string;
/** A's own Call of COMPOUND (its truncated result is aResultUrl). */
let aExecutionId: string;

/** Account B's ids, made by real requests. */
const B = {} as {
  searchId: string;
  executionId: string;
  usageEventId: string;
  ledgerEntryId: string;
  webhookEndpointId: string;
  webhookDeliveryId: string;
  notificationId: string;
  /** A month B has a statement for (the current one: its ledger starts at its seeding). */
  statementMonth: string;
  /** A failed but charged Call of B (support refunds it). */
  reviewExecutionId: string;
  resultUrl: URL;
  callBody: Record<string, unknown>;
  oauthAccessToken: string;
  oauthRefreshToken: string;
  /** B's purchase of credits (pending: started through the API against Stripe's stand-in). */
  paymentId: string;
};
/** A's own truncated result: a valid signature, for another execution id. */
let aResultUrl: URL;
/** Stripe's stand-in: payments are on in this file. */
let fakeStripe: FakeStripe | undefined;
let restorePayments: (() => void) | undefined;

afterAll(async () => {
  restorePayments?.();
  await fakeStripe?.close();
});

interface Answer {
  status: number;
  text: string;
  body: Json;
  headers: Headers;
}

async function api(method: string, path: string, token?: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${h.server.url}/api/v1${path}`, {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await res.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // CSV exports and empty bodies stay text.
  }
  return { status: res.status, text, body: parsed, headers: res.headers };
}

const get = (path: string, token: string) => api("GET", path, token);
const q = (value: string) => encodeURIComponent(value);

/** Nothing that belongs only to B: its account id, its key, its search text. */
function noLeak(answer: Answer) {
  for (const secret of [b.accountId, b.apiKey, b.apiKey.slice(0, 11), B_MARKER]) expect(answer.text).not.toContain(secret);
}

function notFound(answer: Answer) {
  expect(answer.status).toBe(404);
  expect(answer.body).toMatchObject({ status: "failure", status_code: 404 });
  noLeak(answer);
}

function emptyList(answer: Answer) {
  expect(answer.status).toBe(200);
  expect(answer.body.data.items).toEqual([]);
  noLeak(answer);
}

/**
 * A timeline of the caller's own records that name B's search id (a Call or Inspect that passed it)
 * shows that id and nothing else of B's search: not its query, time, result count or events.
 */
function onlyTheIdOfBsSearch(searches: { search_id: string }[]) {
  for (const s of searches.filter((x) => x.search_id === B.searchId)) {
    expect(s).toMatchObject({ query: null, created_at: null, result_count: null, search_event: null, inspect_events: [] });
  }
}

/** `account_id` of another account is for support users only: 403, exactly as for an account that does not exist. */
async function refusesAccountId(path: string) {
  const sep = path.includes("?") ? "&" : "?";
  const theirs = await get(`${path}${sep}account_id=${b.accountId}`, a.accessToken);
  const none = await get(`${path}${sep}account_id=${NO_ACCOUNT}`, a.accessToken);
  expect(theirs.status).toBe(403);
  expect(none.status).toBe(403);
  expect(theirs.body.message).toBe(none.body.message);
  noLeak(theirs);
}

/** The usage filters that take an id, with B's ids (its agent run, and the client only B's delegated Call went through). */
const usageFilters = () => [`search_id=${q(B.searchId)}`, `execution_id=${q(B.executionId)}`, `api_key_id=${b.apiKeyId}`, ...attributionFilters()];
/** The filters the spend breakdown shares with the usage list, with B's ids. */
const attributionFilters = () => [`api_key_id=${b.apiKeyId}`, `oauth_client_id=${q(runtime.client.client_id)}`, `run_id=${q(B_RUN)}`];
/** Tool and provider ids are the shared catalog's: filtering by the tool B called gets the caller's own Calls of it, never B's. */
const catalogFilters = () => [`tool_id=${q(COMPOUND)}`, `provider_id=${q(compoundProvider)}`];

/** A usage answer filtered by a catalog id: A's own Call of COMPOUND, and nothing of B's. */
async function onlyOwnCalls(path: string) {
  const sep = path.includes("?") ? "&" : "?";
  for (const filter of catalogFilters()) {
    const res = await get(`${path}${sep}${filter}`, a.accessToken);
    expect(res.status).toBe(200);
    expect(res.text).toContain(aExecutionId);
    expect(res.text).not.toContain(B.executionId);
    noLeak(res);
  }
}

/** A spend breakdown with B's ids as filters: no group and nothing counted. */
function emptyBreakdown(answer: Answer) {
  expect(answer.status).toBe(200);
  expect(answer.body.data.groups).toEqual([]);
  expect(answer.body.data.totals).toMatchObject({ calls: 0, settled_credits: 0 });
  noLeak(answer);
}

/** B's ids any lookup would resolve within B's own account. */
const lookupIds = () => [B.executionId, B.searchId, B.usageEventId, B.ledgerEntryId, B_SESSION];

const resultPath = (url: URL) => `${url.pathname.replace(/^\/api\/v1/, "")}${url.search}`;

const TABLE: Record<string, Row> = {
  "POST /tools/probe": {
    ids: ["query:tool_id"],
    answer: "404: tool ids are the shared catalog's, and another account's ids are not tools",
    check: async () => {
      for (const id of [B.executionId, B.searchId]) notFound(await api("POST", `/tools/probe?tool_id=${q(id)}`, a.apiKey, { parameters: {} }));
    },
  },
  "POST /tools/execute": {
    ids: ["body:search_id", "body:session_id", "body:tool_id", "query:tool_id"],
    answer: "B's search_id, session_id and Idempotency-Key only label the caller's own Call; never B's response or B's search",
    check: async () => {
      // B's exact request, with B's Idempotency-Key: a Call of the planter, not a replay of B's.
      const planted = await api("POST", "/tools/execute", planter.apiKey, B.callBody, { "Idempotency-Key": B_IDEMPOTENCY_KEY });
      expect(planted.status).toBe(200);
      expect(planted.body.success).toBe(true);
      expect(planted.body.execution_id).not.toBe(B.executionId);
      noLeak(planted);
      // The planter's timeline of B's search id holds its own Call, and of the search only the id it gave.
      const theirs = await get(`/auth/lookup?id=${q(B.searchId)}`, planter.accessToken);
      expect(theirs.status).toBe(200);
      expect(theirs.body.data.calls.map((c: { execution_id: string }) => c.execution_id)).toEqual([planted.body.execution_id]);
      onlyTheIdOfBsSearch(theirs.body.data.searches);
      noLeak(theirs);
      // B's own timeline is untouched.
      const own = await get(`/auth/lookup?id=${q(B.searchId)}`, b.accessToken);
      expect(own.body.data.calls.map((c: { execution_id: string }) => c.execution_id)).toEqual([B.executionId]);
      // Another account's id is not a tool: the Call's own 404.
      const unknown = await api("POST", `/tools/execute?tool_id=${q(B.executionId)}`, a.apiKey, { parameters: {} });
      expect(unknown.status).toBe(404);
      expect(unknown.body.success).toBe(false);
      noLeak(unknown);
    },
  },
  "GET /results/{execution_id}": {
    ids: ["path:execution_id"],
    answer: "403: the URL's signature is the credential, and a valid one for another execution does not open B's (same answer as for an id that does not exist)",
    check: async () => {
      const own = await get(resultPath(B.resultUrl), "");
      expect(own.status).toBe(200);
      const forged = (id: string) => `/results/${id}${aResultUrl.search}`;
      const theirs = await api("GET", forged(B.executionId));
      const none = await api("GET", forged("exe_doesnotexist0000000000"));
      expect(theirs.status).toBe(403);
      expect(none.status).toBe(403);
      expect(theirs.body.message).toBe(none.body.message);
      expect(theirs.text).not.toContain(own.text);
    },
  },
  "GET /oauth/authorize": {
    ids: ["query:client_id"],
    answer: "400, never redirected: OAuth clients are server-wide registrations (no account data), and an account's id is not one",
    check: async () => {
      const res = await api("GET", `/oauth/authorize?response_type=code&client_id=${q(b.accountId)}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    },
  },
  "POST /oauth/device/authorize": {
    ids: ["body:client_id"],
    answer: "401 invalid_client for anything but a registered client id (a device code then belongs to that client: POST /oauth/token)",
    check: async () => {
      const res = await h.fetch(h.as.device_authorization_endpoint!, { method: "POST", body: form({ client_id: b.accountId, scope: "usage:read" }) });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: "invalid_client" });
    },
  },
  "POST /oauth/token": {
    // tool_ids, provider_ids and run_id of a token exchange narrow or label the delegation the Agent Runtime asks for; they name no account's data.
    ids: ["body:client_id", "body:provider_ids", "body:run_id", "body:tool_ids"],
    answer: "400 invalid_grant: a device code or refresh token of B (issued to client X) presented by client Y gets nothing",
    check: async () => {
      const started = await oauth.processDeviceAuthorizationResponse(h.as, cliX.client, await oauth.deviceAuthorizationRequest(h.as, cliX.client, cliX.auth, { scope: "usage:read" }, h.http));
      await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: b.userId, accountId: b.accountId, approve: true });
      const poll = oauth.deviceCodeGrantRequest(h.as, cliY.client, cliY.auth, started.device_code, h.http).then((res) => oauth.processDeviceCodeResponse(h.as, cliY.client, res));
      expect(await oauthFailure(poll)).toMatchObject({ status: 400, error: "invalid_grant" });
      const refresh = oauth.refreshTokenGrantRequest(h.as, cliY.client, cliY.auth, B.oauthRefreshToken, h.http).then((res) => oauth.processRefreshTokenResponse(h.as, cliY.client, res));
      expect(await oauthFailure(refresh)).toMatchObject({ status: 400, error: "invalid_grant" });
    },
  },
  "POST /oauth/revoke": {
    ids: ["body:client_id"],
    answer: "403 unauthorized_client: client Y cannot revoke B's tokens issued to client X, and they keep working",
    check: async () => {
      for (const token of [B.oauthAccessToken, B.oauthRefreshToken]) {
        const res = await h.fetch(h.as.revocation_endpoint!, { method: "POST", body: form({ client_id: cliY.client.client_id, token }) });
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ error: "unauthorized_client" });
      }
      expect((await get("/auth/usage/history/v2?limit=1", B.oauthAccessToken)).status).toBe(200);
    },
  },
  "PUT /auth/budgets": {
    ids: ["body:scope_id"],
    answer: "404 for B's API key, and no budget is set",
    check: async () => {
      notFound(await api("PUT", "/auth/budgets", a.accessToken, { scope: "api_key", scope_id: b.apiKeyId, limit_credits: 1, period: "day" }));
      expect((await get("/auth/budgets", a.accessToken)).body.data.items).toEqual([]);
      expect((await get("/auth/budgets", b.accessToken)).body.data.items).toEqual([]);
    },
  },
  "DELETE /auth/budgets/{budget_id}": {
    ids: ["path:budget_id"],
    answer: "404, and B's budget stays",
    check: async () => {
      const budget = await setBudget(database.db, { accountId: b.accountId, scope: "account", limitCredits: "1000", period: "month" });
      notFound(await api("DELETE", `/auth/budgets/${budget.budget_id}`, a.accessToken));
      expect((await get("/auth/budgets", b.accessToken)).body.data.items.map((x: { budget_id: string }) => x.budget_id)).toEqual([budget.budget_id]);
      await removeBudget(database.db, { budgetId: budget.budget_id });
    },
  },
  "DELETE /auth/api-keys/{api_key_id}": {
    ids: ["path:api_key_id"],
    answer: "404, and B's key keeps working",
    check: async () => {
      notFound(await api("DELETE", `/auth/api-keys/${b.apiKeyId}`, a.accessToken));
      expect((await get("/auth/credits", b.apiKey)).status).toBe(200);
      const keys = (await get("/auth/api-keys", b.accessToken)).body.data.items as { api_key_id: string; revoked_at: string | null }[];
      expect(keys.find((k) => k.api_key_id === b.apiKeyId)?.revoked_at).toBeNull();
    },
  },
  "POST /search": {
    ids: ["body:session_id"],
    answer: "B's session_id only labels the caller's own search; the caller's session timeline never shows B's searches",
    check: async () => {
      const planted = await api("POST", "/search", planter.apiKey, { query: "temperature conversion", session_id: B_SESSION });
      expect(planted.status).toBe(200);
      noLeak(planted);
      const theirs = await get(`/auth/lookup?id=${q(B_SESSION)}`, planter.accessToken);
      expect(theirs.body.data.searches.map((s: { search_id: string }) => s.search_id)).toContain(planted.body.search_id);
      onlyTheIdOfBsSearch(theirs.body.data.searches);
      noLeak(theirs);
      const own = await get(`/auth/lookup?id=${q(B_SESSION)}`, b.accessToken);
      expect(own.body.data.searches.map((s: { search_id: string }) => s.search_id)).toEqual([B.searchId]);
    },
  },
  "POST /tools/by-ids": {
    ids: ["body:search_id", "body:session_id", "body:tool_ids"],
    answer: "B's search_id only labels the caller's own Inspect: the answer holds nothing of B's search, and B's timeline no Inspect of the caller",
    check: async () => {
      const planted = await api("POST", "/tools/by-ids", planter.apiKey, { tool_ids: [COMPOUND, B.executionId], search_id: B.searchId, session_id: B_SESSION });
      expect(planted.status).toBe(200);
      expect(planted.body.results.map((r: { tool_id: string }) => r.tool_id)).toEqual([COMPOUND]);
      noLeak(planted);
      const own = await get(`/auth/lookup?id=${q(B.searchId)}`, b.accessToken);
      expect(own.body.data.searches[0].inspect_events).toEqual([]);
    },
  },
  "GET /auth/usage/history/v2": {
    ids: ["query:account_id", "query:api_key_id", "query:execution_id", "query:oauth_client_id", "query:provider_id", "query:run_id", "query:search_id", "query:tool_id"],
    answer: "an empty page for B's ids; B's tool or provider: the caller's own Calls only; 403 for account_id; support reads B's event by its execution id",
    check: async () => {
      for (const filter of usageFilters()) emptyList(await get(`/auth/usage/history/v2?${filter}`, a.accessToken));
      await onlyOwnCalls("/auth/usage/history/v2");
      await refusesAccountId("/auth/usage/history/v2");
      const bySupport = await get(`/auth/usage/history/v2?execution_id=${q(B.executionId)}`, support.accessToken);
      expect(bySupport.body.data.items.map((i: { id: string }) => i.id)).toEqual([B.usageEventId]);
    },
  },
  "GET /auth/usage/history/v2/summary": {
    ids: ["query:account_id", "query:api_key_id", "query:execution_id", "query:oauth_client_id", "query:provider_id", "query:run_id", "query:search_id", "query:tool_id"],
    answer: "an empty feed for B's ids; B's tool or provider: the caller's own Calls only; 403 for account_id; support reads B's feed",
    check: async () => {
      for (const filter of usageFilters()) emptyList(await get(`/auth/usage/history/v2/summary?${filter}`, a.accessToken));
      await onlyOwnCalls("/auth/usage/history/v2/summary");
      await refusesAccountId("/auth/usage/history/v2/summary");
      const bySupport = await get(`/auth/usage/history/v2/summary?execution_id=${q(B.executionId)}`, support.accessToken);
      expect(bySupport.body.data.items).toHaveLength(1);
    },
  },
  "GET /auth/usage/history/v2/export": {
    ids: ["query:account_id", "query:api_key_id", "query:execution_id", "query:oauth_client_id", "query:provider_id", "query:run_id", "query:search_id", "query:tool_id"],
    answer: "a CSV of the header only for B's ids; B's tool or provider: the caller's own Calls only; 403 for account_id; support exports B's event",
    check: async () => {
      for (const filter of usageFilters()) {
        const res = await get(`/auth/usage/history/v2/export?${filter}`, a.accessToken);
        expect(res.status).toBe(200);
        expect(parseCsv(res.text)).toHaveLength(1);
        noLeak(res);
      }
      await onlyOwnCalls("/auth/usage/history/v2/export");
      await refusesAccountId("/auth/usage/history/v2/export");
      const bySupport = await get(`/auth/usage/history/v2/export?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.text).toContain(B.executionId);
    },
  },
  "GET /auth/usage/history/v2/{event_id}": {
    ids: ["path:event_id", "query:account_id"],
    answer: "404; 403 for account_id; support reads B's event",
    check: async () => {
      notFound(await get(`/auth/usage/history/v2/${B.usageEventId}`, a.accessToken));
      await refusesAccountId(`/auth/usage/history/v2/${B.usageEventId}`);
      const bySupport = await get(`/auth/usage/history/v2/${B.usageEventId}`, support.accessToken);
      expect(bySupport.status).toBe(200);
      expect(bySupport.body.data).toMatchObject({ id: B.usageEventId, execution_id: B.executionId });
    },
  },
  "GET /auth/usage/breakdown": {
    ids: ["query:account_id", "query:api_key_id", "query:oauth_client_id", "query:provider_id", "query:run_id", "query:tool_id"],
    answer: "no group for B's key, client or run; B's tool or provider: the caller's own key's spend only; B's runs never among the caller's groups; 403 for account_id; support groups B's spend by run",
    check: async () => {
      for (const filter of attributionFilters()) emptyBreakdown(await get(`/auth/usage/breakdown?group_by=tool&${filter}`, a.accessToken));
      for (const filter of catalogFilters()) {
        const res = await get(`/auth/usage/breakdown?group_by=api_key&${filter}`, a.accessToken);
        expect(res.status).toBe(200);
        expect(res.body.data.groups.map((g: { key: { api_key: string } }) => g.key.api_key)).toEqual([a.apiKeyId]);
        noLeak(res);
      }
      const byRun = await get("/auth/usage/breakdown?group_by=run_id,oauth_client", a.accessToken);
      expect(byRun.status).toBe(200);
      expect(byRun.text).not.toContain(B_RUN);
      expect(byRun.text).not.toContain(runtime.client.client_id);
      noLeak(byRun);
      await refusesAccountId("/auth/usage/breakdown?group_by=tool");
      const bySupport = await get(`/auth/usage/breakdown?group_by=run_id&account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.body.data.groups.map((g: { key: { run_id: string | null } }) => g.key.run_id)).toContain(B_RUN);
    },
  },
  "GET /auth/usage/breakdown/export": {
    ids: ["query:account_id", "query:api_key_id", "query:oauth_client_id", "query:provider_id", "query:run_id", "query:tool_id"],
    answer: "the header row alone for B's key, client or run; B's tool or provider: the caller's own key's line only; 403 for account_id; support exports B's runs",
    check: async () => {
      for (const filter of attributionFilters()) {
        const csv = await get(`/auth/usage/breakdown/export?group_by=tool&${filter}`, a.accessToken);
        expect(csv.status).toBe(200);
        expect(parseCsv(csv.text)).toHaveLength(1);
        noLeak(csv);
      }
      for (const filter of catalogFilters()) {
        const csv = await get(`/auth/usage/breakdown/export?group_by=api_key&${filter}`, a.accessToken);
        expect(csv.status).toBe(200);
        expect(parseCsv(csv.text)).toHaveLength(2);
        expect(csv.text).toContain(a.apiKeyId);
        expect(csv.text).not.toContain(b.apiKeyId);
        noLeak(csv);
      }
      await refusesAccountId("/auth/usage/breakdown/export?group_by=tool");
      const bySupport = await get(`/auth/usage/breakdown/export?group_by=run_id&account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.status).toBe(200);
      expect(bySupport.text).toContain(B_RUN);
    },
  },
  "GET /auth/runs": {
    ids: ["query:account_id", "query:run_id"],
    answer: "B's runs never among the caller's; B's run_id: no item; 403 for account_id; support lists B's run with its cap",
    check: async () => {
      const mine = await get("/auth/runs", a.accessToken);
      expect(mine.status).toBe(200);
      expect(mine.text).not.toContain(B_RUN);
      noLeak(mine);
      emptyList(await get(`/auth/runs?run_id=${q(B_RUN)}`, a.accessToken));
      await refusesAccountId("/auth/runs");
      const bySupport = await get(`/auth/runs?run_id=${q(B_RUN)}&account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.body.data.items).toMatchObject([{ run_id: B_RUN, max_credits: 5, delegation_count: 1 }]);
    },
  },
  "GET /auth/usage/credits-spent": {
    ids: ["query:account_id"],
    answer: "403 for account_id",
    check: () => refusesAccountId("/auth/usage/credits-spent"),
  },
  "GET /auth/credits/ledger": {
    ids: ["query:account_id"],
    answer: "403 for account_id; support lists B's ledger",
    check: async () => {
      await refusesAccountId("/auth/credits/ledger");
      const bySupport = await get(`/auth/credits/ledger?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.body.data.items.map((i: { id: string }) => i.id)).toContain(B.ledgerEntryId);
    },
  },
  "GET /auth/credits/ledger/export": {
    ids: ["query:account_id"],
    answer: "403 for account_id",
    check: () => refusesAccountId("/auth/credits/ledger/export"),
  },
  "GET /auth/credits/ledger/{entry_id}": {
    ids: ["path:entry_id", "query:account_id"],
    answer: "404; 403 for account_id; support reads B's ledger row",
    check: async () => {
      notFound(await get(`/auth/credits/ledger/${q(B.ledgerEntryId)}`, a.accessToken));
      await refusesAccountId(`/auth/credits/ledger/${q(B.ledgerEntryId)}`);
      const bySupport = await get(`/auth/credits/ledger/${q(B.ledgerEntryId)}`, support.accessToken);
      expect(bySupport.body.data).toMatchObject({ id: B.ledgerEntryId, execution_id: B.executionId });
    },
  },
  "GET /auth/credits/statements": {
    ids: ["query:account_id"],
    answer: "403 for account_id; support lists B's months",
    check: async () => {
      await refusesAccountId("/auth/credits/statements");
      const bySupport = await get(`/auth/credits/statements?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.status).toBe(200);
      expect(bySupport.body.data.items.map((m: { month: string }) => m.month)).toContain(B.statementMonth);
    },
  },
  "GET /auth/credits/statements/{month}": {
    ids: ["path:month", "query:account_id"],
    answer: "a month is no account's: B's month gets the caller's own statement; 403 for account_id; support reads B's statement",
    check: async () => {
      const own = await get(`/auth/credits/statements/${B.statementMonth}`, a.accessToken);
      expect(own.status).toBe(200);
      expect(own.body.data).toMatchObject({ account_id: a.accountId, month: B.statementMonth });
      noLeak(own);
      await refusesAccountId(`/auth/credits/statements/${B.statementMonth}`);
      const bySupport = await get(`/auth/credits/statements/${B.statementMonth}?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.status).toBe(200);
      expect(bySupport.body.data).toMatchObject({ account_id: b.accountId, month: B.statementMonth });
    },
  },
  "GET /auth/credits/statements/{month}/export": {
    ids: ["path:month", "query:account_id"],
    answer: "a month is no account's: B's month gets the caller's own statement as CSV; 403 for account_id; support exports B's statement",
    check: async () => {
      const own = await get(`/auth/credits/statements/${B.statementMonth}/export`, a.accessToken);
      expect(own.status).toBe(200);
      expect(own.text).toContain(a.accountId);
      noLeak(own);
      await refusesAccountId(`/auth/credits/statements/${B.statementMonth}/export`);
      const bySupport = await get(`/auth/credits/statements/${B.statementMonth}/export?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.status).toBe(200);
      expect(bySupport.text).toContain(b.accountId);
    },
  },
  "GET /auth/credits/ledger-readiness": {
    ids: ["query:account_id"],
    answer: "403 for account_id",
    check: () => refusesAccountId("/auth/credits/ledger-readiness"),
  },
  "GET /auth/account/settlement-history": {
    ids: ["query:account_id"],
    answer: "403 for account_id",
    check: () => refusesAccountId("/auth/account/settlement-history"),
  },
  "GET /auth/account": {
    ids: ["query:account_id"],
    answer: "403 for account_id; support reads B's name and owners",
    check: async () => {
      await refusesAccountId("/auth/account");
      const bySupport = await get(`/auth/account?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.body.data).toMatchObject({ account_id: b.accountId, owners: [expect.any(String)] });
    },
  },
  "GET /auth/account/members": {
    ids: ["query:account_id"],
    answer: "403 for account_id",
    check: () => refusesAccountId("/auth/account/members"),
  },
  "GET /auth/account/invitations": {
    ids: ["query:account_id"],
    answer: "403 for account_id",
    check: () => refusesAccountId("/auth/account/invitations"),
  },
  "GET /auth/account/activity": {
    ids: ["query:account_id", "query:actor_id", "query:object_id"],
    answer: "403 for account_id; B's user or object as a filter: an empty page",
    check: async () => {
      await refusesAccountId("/auth/account/activity");
      emptyList(await get(`/auth/account/activity?actor_id=${q(b.userId)}`, a.accessToken));
      emptyList(await get(`/auth/account/activity?object_id=${q(B.webhookEndpointId)}`, a.accessToken));
    },
  },
  "GET /auth/account/activity/export": {
    ids: ["query:account_id", "query:actor_id", "query:object_id"],
    answer: "403 for account_id; B's user or object as a filter: the header row alone",
    check: async () => {
      await refusesAccountId("/auth/account/activity/export");
      for (const filter of [`actor_id=${q(b.userId)}`, `object_id=${q(B.webhookEndpointId)}`]) {
        const csv = await get(`/auth/account/activity/export?${filter}`, a.accessToken);
        expect(csv.status).toBe(200);
        expect(parseCsv(csv.text)).toHaveLength(1);
        noLeak(csv);
      }
    },
  },
  "PATCH /auth/account/members/{user_id}": {
    ids: ["path:user_id"],
    answer: "404, and B's owner stays owner",
    check: async () => {
      notFound(await api("PATCH", `/auth/account/members/${q(b.userId)}`, a.accessToken, { role: "member" }));
      expect((await get("/auth/account/members", b.accessToken)).body.data.items).toMatchObject([{ user_id: b.userId, role: "owner" }]);
    },
  },
  "DELETE /auth/account/members/{user_id}": {
    ids: ["path:user_id"],
    answer: "404, and B keeps its member",
    check: async () => {
      notFound(await api("DELETE", `/auth/account/members/${q(b.userId)}`, a.accessToken));
      expect((await get("/auth/account/members", b.accessToken)).body.data.items).toMatchObject([{ user_id: b.userId }]);
    },
  },
  "POST /auth/account/members/{user_id}/two-factor/reset": {
    ids: ["path:user_id"],
    answer: "404, and B's member keeps two-factor sign-in",
    check: async () => {
      const { user_id: userId } = await createUser(database.db, { accountId: b.accountId, email: `two-factor-${b.accountId}@example.test`, password: "correct horse battery", role: "member" });
      const { secret } = await startEnrolment(database.db, { userId, password: "correct horse battery" });
      await confirmEnrolment(database.db, { userId, code: await generate({ secret }), actor: { type: "user", id: userId } });
      for (const id of [userId, b.userId]) notFound(await api("POST", `/auth/account/members/${q(id)}/two-factor/reset`, a.accessToken));
      expect(await getTwoFactorStatus(database.db, { userId, accountId: b.accountId })).toMatchObject({ enabled: true });
    },
  },
  "DELETE /auth/account/invitations/{invitation_id}": {
    ids: ["path:invitation_id"],
    answer: "404, and B's invitation stays pending",
    check: async () => {
      const { invitation } = await inviteMember(database.db, { accountId: b.accountId, email: `invitee-${b.accountId}@example.test`, role: "member", invitedBy: b.userId, actor: { type: "user", id: b.userId } });
      notFound(await api("DELETE", `/auth/account/invitations/${q(invitation.invitation_id)}`, a.accessToken));
      const listed = (await get("/auth/account/invitations", b.accessToken)).body.data.items;
      expect(listed.find((i: { invitation_id: string }) => i.invitation_id === invitation.invitation_id)).toMatchObject({ status: "pending" });
    },
  },
  "POST /auth/executions/{execution_id}/refunds": {
    ids: ["path:execution_id"],
    answer: "403 for anyone but support, the same answer as for an execution that does not exist; support refunds B's review case",
    check: async () => {
      const theirs = await api("POST", `/auth/executions/${q(B.reviewExecutionId)}/refunds`, a.accessToken, { reason: "give it to me" });
      const none = await api("POST", "/auth/executions/exe_doesnotexist0000000000/refunds", a.accessToken, { reason: "give it to me" });
      expect(theirs.status).toBe(403);
      expect(none.status).toBe(403);
      expect(theirs.body.message).toBe(none.body.message);
      noLeak(theirs);
      const bySupport = await api("POST", `/auth/executions/${q(B.reviewExecutionId)}/refunds`, support.accessToken, { amount_credits: "0.5", reason: "provider outage" });
      expect(bySupport.status).toBe(201);
      expect(bySupport.body.data.execution).toMatchObject({ account_id: b.accountId, refunded_credits: 0.5 });
    },
  },
  "GET /auth/executions/{execution_id}/refunds": {
    ids: ["path:execution_id"],
    answer: "404; support reads B's refunds",
    check: async () => {
      for (const id of [B.executionId, B.reviewExecutionId]) notFound(await get(`/auth/executions/${q(id)}/refunds`, a.accessToken));
      const bySupport = await get(`/auth/executions/${q(B.executionId)}/refunds`, support.accessToken);
      expect(bySupport.body.data).toMatchObject({ items: [], execution: { execution_id: B.executionId, account_id: b.accountId } });
    },
  },
  "POST /auth/notifications/read": {
    ids: ["body:notification_ids"],
    answer: "nothing marked: B's notification stays unread",
    check: async () => {
      const res = await api("POST", "/auth/notifications/read", a.accessToken, { notification_ids: [B.notificationId] });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ marked: 0 });
      const own = (await get("/auth/notifications", b.accessToken)).body.data.items.find((n: { id: string }) => n.id === B.notificationId);
      expect(own).toMatchObject({ read_at: null });
    },
  },
  "POST /auth/connections": {
    ids: ["body:provider_id"],
    answer: "a provider is the catalog's, not an account's: A's request starts A's own connection and never touches B's",
    check: async () => {
      const refused = await api("POST", "/auth/connections", a.accessToken, { provider_id: compoundProvider, secret: { value: "x" } });
      expect(refused.status).toBe(400);
      expect((await get("/auth/connections", b.accessToken)).body.data.connections).toEqual([]);
      expect((await get("/auth/connections", a.accessToken)).body.data.connections).toEqual([]);
    },
  },
  "DELETE /auth/connections/{connection_id}": {
    ids: ["path:connection_id"],
    answer: "404, and B's connection stays active with its token",
    check: async () => {
      const id = "con_cross_account_b";
      await database.db.insert(connections).values({ id, accountId: b.accountId, userId: b.userId, providerId: compoundProvider, kind: "secret", accessToken: seal("sk_b_secret", tokenContext("access_token", id)), createdBy: b.userId });
      notFound(await api("DELETE", `/auth/connections/${q(id)}`, a.accessToken));
      const [row] = await database.db.select().from(connections).where(eq(connections.id, id));
      expect(row).toMatchObject({ status: "active", accessToken: expect.stringMatching(/^v1\./) });
    },
  },
  "DELETE /auth/webhooks/{endpoint_id}": {
    ids: ["path:endpoint_id"],
    answer: "404, and B's endpoint stays",
    check: async () => {
      notFound(await api("DELETE", `/auth/webhooks/${q(B.webhookEndpointId)}`, a.accessToken));
      expect((await get("/auth/webhooks", b.accessToken)).body.data.items.map((e: { id: string }) => e.id)).toContain(B.webhookEndpointId);
    },
  },
  "POST /auth/webhooks/{endpoint_id}/test": {
    ids: ["path:endpoint_id"],
    answer: "404, and nothing is queued for B's endpoint",
    check: async () => {
      const before = (await get(`/auth/webhooks/${q(B.webhookEndpointId)}/deliveries`, b.accessToken)).body.data.items.length;
      notFound(await api("POST", `/auth/webhooks/${q(B.webhookEndpointId)}/test`, a.accessToken));
      expect((await get(`/auth/webhooks/${q(B.webhookEndpointId)}/deliveries`, b.accessToken)).body.data.items).toHaveLength(before);
    },
  },
  "GET /auth/webhooks/{endpoint_id}/deliveries": {
    ids: ["path:endpoint_id"],
    answer: "404; B reads its own delivery log",
    check: async () => {
      notFound(await get(`/auth/webhooks/${q(B.webhookEndpointId)}/deliveries`, a.accessToken));
      const own = await get(`/auth/webhooks/${q(B.webhookEndpointId)}/deliveries`, b.accessToken);
      expect(own.body.data.items.map((d: { id: string }) => d.id)).toContain(B.webhookDeliveryId);
    },
  },
  "POST /auth/webhook-deliveries/{delivery_id}/resend": {
    ids: ["path:delivery_id"],
    answer: "404, and B's delivery is unchanged",
    check: async () => {
      const log = async () => (await get(`/auth/webhooks/${q(B.webhookEndpointId)}/deliveries`, b.accessToken)).body.data.items.find((d: { id: string }) => d.id === B.webhookDeliveryId);
      const before = await log();
      notFound(await api("POST", `/auth/webhook-deliveries/${q(B.webhookDeliveryId)}/resend`, a.accessToken));
      expect(await log()).toEqual(before);
    },
  },
  "GET /auth/billing/payments": {
    ids: ["query:account_id"],
    answer: "the caller's own payments only; 403 for account_id; support lists B's payment",
    check: async () => {
      const own = await get("/auth/billing/payments", a.accessToken);
      expect(own.status).toBe(200);
      expect(own.text).not.toContain(B.paymentId);
      noLeak(own);
      await refusesAccountId("/auth/billing/payments");
      const bySupport = await get(`/auth/billing/payments?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.body.data.items.map((p: { payment_id: string }) => p.payment_id)).toEqual([B.paymentId]);
    },
  },
  "GET /auth/billing/payments/{payment_id}": {
    ids: ["path:payment_id", "query:account_id"],
    answer: "404; 403 for account_id; support reads B's payment",
    check: async () => {
      notFound(await get(`/auth/billing/payments/${q(B.paymentId)}`, a.accessToken));
      await refusesAccountId(`/auth/billing/payments/${q(B.paymentId)}`);
      const bySupport = await get(`/auth/billing/payments/${q(B.paymentId)}`, support.accessToken);
      expect(bySupport.body.data).toMatchObject({ payment_id: B.paymentId, account_id: b.accountId, status: "pending" });
    },
  },
  "GET /auth/billing/auto-topup": {
    ids: ["query:account_id"],
    answer: "the caller's own auto top-up only (B's threshold is not in it); 403 for account_id; support reads B's",
    check: async () => {
      const own = await get("/auth/billing/auto-topup", a.accessToken);
      expect(own.status).toBe(200);
      expect(own.body.data).toMatchObject({ account_id: a.accountId, state: "off", threshold_credits: null });
      noLeak(own);
      await refusesAccountId("/auth/billing/auto-topup");
      const bySupport = await get(`/auth/billing/auto-topup?account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.body.data).toMatchObject({ account_id: b.accountId, threshold_credits: 77, amount_credits: 100 });
    },
  },
  "GET /auth/billing/reconciliation": {
    ids: ["query:account_id"],
    answer: "the caller's own lines only (B's charge, known to Stripe, is not among them); 403 for account_id; support reads B's line",
    check: async () => {
      const period = `from=${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}&to=${new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)}`;
      const own = await get(`/auth/billing/reconciliation?${period}`, a.accessToken);
      expect(own.status).toBe(200);
      expect(own.text).not.toContain(B.paymentId);
      noLeak(own);
      await refusesAccountId(`/auth/billing/reconciliation?${period}`);
      const bySupport = await get(`/auth/billing/reconciliation?${period}&account_id=${b.accountId}`, support.accessToken);
      expect(bySupport.body.data.lines.map((l: { payment_id: string; status: string }) => [l.payment_id, l.status])).toEqual([[B.paymentId, "missing_in_ledger"]]);
    },
  },
  "GET /auth/lookup": {
    ids: ["query:account_id", "query:id"],
    answer: "404 for each kind of B's ids (execution, search, usage event, ledger entry, session); 403 for account_id; support resolves B's execution",
    check: async () => {
      for (const id of lookupIds()) notFound(await get(`/auth/lookup?id=${q(id)}`, a.accessToken));
      await refusesAccountId(`/auth/lookup?id=${q(B.executionId)}`);
      const bySupport = await get(`/auth/lookup?id=${q(B.executionId)}`, support.accessToken);
      expect(bySupport.body.data).toMatchObject({ account_id: b.accountId, resolved_as: "execution_id" });
    },
  },
};

/** A Call whose result is truncated (so it has a signed URL to its full content). */
async function truncatedCall(seeded: Seeded, extra: Record<string, unknown>, headers: Record<string, string> = {}) {
  const body = { tool_id: COMPOUND, parameters: COMPOUND_PARAMS, max_response_size: 10, ...extra };
  const res = await api("POST", "/tools/execute", seeded.apiKey, body, headers);
  expect(res.status).toBe(200);
  expect(res.body.result.full_content_file_url).toEqual(expect.any(String));
  return { body, executionId: res.body.execution_id as string, url: new URL(res.body.result.full_content_file_url) };
}

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  h = await startOAuthHarness(database);
  doc = (await api("GET", "/openapi.json")).body;
  a = await seedAccount(database.db, { credits: "10" });
  b = await seedAccount(database.db, { credits: "10" });
  planter = await seedAccount(database.db, { credits: "10" });
  support = await seedAccount(database.db, { role: "support" });
  cliX = await registerClient(database.db, { name: "Client X", type: "public", grants: ["device_code", "refresh_token"] });
  cliY = await registerClient(database.db, { name: "Client Y", type: "public", grants: ["device_code", "refresh_token"] });

  const search = await api("POST", "/search", b.apiKey, { query: `compound interest ${B_MARKER}`, session_id: B_SESSION });
  expect(search.status).toBe(200);
  B.searchId = search.body.search_id;
  const call = await truncatedCall(b, { search_id: B.searchId, session_id: B_SESSION }, { "Idempotency-Key": B_IDEMPOTENCY_KEY });
  Object.assign(B, { executionId: call.executionId, resultUrl: call.url, callBody: call.body });
  const event = (await get(`/auth/usage/history/v2?execution_id=${q(B.executionId)}`, b.accessToken)).body.data.items[0];
  expect(event.credits_ledger_entry_id).toEqual(expect.any(String));
  Object.assign(B, { usageEventId: event.id, ledgerEntryId: event.credits_ledger_entry_id });
  B.reviewExecutionId = (await writeReviewCase(database.db, b.accountId, "1")).executionId;
  // B's webhook endpoint (a public address; no worker runs here, so nothing is sent), a delivery to it, a notification.
  B.webhookEndpointId = (await createWebhookEndpoint(database.db, { accountId: b.accountId, url: "https://93.184.215.14/b" })).id;
  B.webhookDeliveryId = (await sendTestEvent(database.db, { accountId: b.accountId, endpointId: B.webhookEndpointId })).delivery_id;
  B.notificationId = (await notify(database.db, { accountId: b.accountId, kind: "low_balance", claimKey: `low_balance:${b.accountId}`, payload: {} })).notificationId!;
  const aCall = await truncatedCall(a, {});
  aResultUrl = aCall.url;
  aExecutionId = aCall.executionId;
  compoundProvider = (await database.db.select({ providerId: tools.providerId }).from(tools).where(eq(tools.id, COMPOUND)))[0].providerId;
  // B's delegated Call: an agent runtime exchanges B's token for one bound to an agent run.
  runtime = await registerClient(database.db, { name: "Agent runtime", type: "confidential", agentRuntime: true });
  const subject = (await issueAccessToken(database.db, { userId: b.userId, accountId: b.accountId, role: "owner", scope: "tools:execute", ttlSeconds: 600 })).accessToken;
  const exchange = Object.entries({ subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, resource: apiAudience(), scope: "tools:execute", run_id: B_RUN, max_credits: "5" });
  const delegation = await oauth.processGenericTokenEndpointResponse(
    h.as,
    runtime.client,
    await oauth.genericTokenEndpointRequest(h.as, runtime.client, runtime.auth, "urn:ietf:params:oauth:grant-type:token-exchange", exchange, h.http),
  );
  const delegated = await api("POST", "/tools/execute", delegation.access_token, { tool_id: LOAN, parameters: LOAN_PARAMS });
  expect(delegated.status).toBe(200);
  expect(delegated.body.success).toBe(true);
  fakeStripe = await startFakeStripe();
  restorePayments = configurePayments(fakeStripe);
  const bought = await api("POST", "/auth/billing/checkout", b.accessToken, { pack: 100 });
  expect(bought.status).toBe(201);
  B.paymentId = bought.body.data.payment_id;
  expect((await api("PUT", "/auth/billing/auto-topup", b.accessToken, { threshold_credits: 77, amount_credits: 100, daily_limit_credits: 500 })).status).toBe(200);
  // Paid on Stripe, its webhook not delivered: B's reconciliation has a line (missing in the ledger), the payment stays pending.
  fakeStripe.pay(bought.body.data.stripe_checkout_session_id);
  const statements = await get("/auth/credits/statements", b.accessToken);
  expect(statements.status).toBe(200);
  B.statementMonth = statements.body.data.items[0].month;

  // B's OAuth tokens, issued to client X through the device flow.
  const started = await oauth.processDeviceAuthorizationResponse(h.as, cliX.client, await oauth.deviceAuthorizationRequest(h.as, cliX.client, cliX.auth, { scope: "usage:read" }, h.http));
  await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: b.userId, accountId: b.accountId, approve: true });
  const tokens = await oauth.processDeviceCodeResponse(h.as, cliX.client, await oauth.deviceCodeGrantRequest(h.as, cliX.client, cliX.auth, started.device_code, h.http));
  Object.assign(B, { oauthAccessToken: tokens.access_token, oauthRefreshToken: tokens.refresh_token });
});

describe("cross-account ids (OWASP API1)", () => {
  it("the table has a row for every id-taking operation of the published OpenAPI description, with its id inputs", () => {
    const table = Object.fromEntries(Object.entries(TABLE).map(([op, row]) => [op, [...row.ids].sort()]));
    expect(table).toEqual(idTakingOperations(doc));
  });

  it.for(Object.entries(TABLE).map(([op, row]) => [op, row.answer] as const))("%s: another account's id gets %s", async ([op]) => {
    await TABLE[op].check();
  });
});

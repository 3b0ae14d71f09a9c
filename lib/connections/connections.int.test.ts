// Connected accounts end to end through the real API (docs/connections.md): an independent local
// OAuth provider (lib/testing/fake-oauth-provider.ts) plays the third party; its OpenAPI document
// is imported, the user connects through its consent page, Calls act as the user, the token is
// refreshed, revoked, reconnected and disconnected; nothing reaches the provider without a
// connection, no token appears in any answer or log line, and one account's connection never
// serves another's Call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, callApi, seedAccount } from "../testing/fixtures";
import { startFakeOAuthProvider, type FakeOAuthProvider } from "../testing/fake-oauth-provider";
import { manifestFromOpenApi } from "../catalog/openapi/convert";
import { importCatalog } from "../catalog/import";
import { importManifest } from "../testing/catalog";
import { invalidateToolCache } from "../catalog/get-tool";
import { setOauthApp } from "./oauth-client";
import { sessionCookie } from "../dashboard-session/browser-session";
import { accountActivity, connections, creditsLedger, executions, notifications } from "../db/schema";
import { removeMember, addMember } from "../accounts/members";
import { createUser } from "../accounts/create-user";
import { DEFAULT_SCOPE, issueAccessToken } from "../auth/jwt";
import { OPERATOR } from "../accounts/activity";
import { redirectLogs } from "../log";
import type { Database } from "../db/types";
import type { ManifestInput } from "../catalog/manifest";

const CALLBACK = "http://tollgate.test/api/v1/connections/callback";
let database: Database;
let server: TestServer;
let provider: FakeOAuthProvider;
let tools: Record<string, string>;
const answers: string[] = [];
const logLines: string[] = [];
let restoreLogs: () => void;

type User = Awaited<ReturnType<typeof seedAccount>>;

/** An account whose API key its user created (Calls with it act with that user's connection). */
async function seedUser(credits = "100"): Promise<User> {
  const user = await seedAccount(database.db, { credits });
  const key = await callApi(server.url, "POST", "/auth/api-keys", user.accessToken, { name: "agent" });
  return { ...user, apiKey: key.body.data.api_key, apiKeyId: key.body.data.api_key_id };
}

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await callApi(server.url, method, path, token, body);
  answers.push(JSON.stringify(res.body));
  return res;
}

async function call(user: User, tool: string, parameters: Record<string, unknown> = {}) {
  return api("POST", "/tools/execute", user.apiKey, { tool_id: tool, parameters });
}

/** The user connects through the provider's consent page as a browser would; returns the callback's redirect. */
async function connect(user: User, options: { scopes?: string[]; as?: string; cookieUser?: User; shared?: boolean } = {}) {
  const started = await api("POST", "/auth/connections", user.accessToken, { provider_id: "fakeprov", scopes: options.scopes ?? ["profile", "items:read"], return_to: "/console?tool=x", shared: options.shared ?? false });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const authorizationUrl = new URL(started.body.data.authorization_url);
  expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorizationUrl.searchParams.get("redirect_uri")).toBe(CALLBACK);
  const page = await fetch(authorizationUrl);
  expect(await page.text()).toContain("Allow");
  const decided = await fetch(provider.authorizationUrl, {
    method: "POST",
    body: new URLSearchParams({ ...Object.fromEntries(authorizationUrl.searchParams), user: options.as ?? "alice", decision: "allow" }),
    redirect: "manual",
  });
  const back = new URL(decided.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return callback(back.search, options.cookieUser ?? user);
}

async function callback(search: string, browser: User | null) {
  const cookie = browser ? await sessionCookie(database.db, { userId: browser.userId, accountId: browser.accountId, role: "owner" }) : undefined;
  const res = await fetch(`${server.url}/api/v1/connections/callback${search}`, { headers: cookie ? { cookie } : {}, redirect: "manual" });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, location: res.headers.get("location"), text };
}

beforeAll(async () => {
  restoreLogs = redirectLogs((chunk) => logLines.push(chunk), "debug");
  database = await createTestDatabase({ poolSize: 20 });
  provider = await startFakeOAuthProvider({ redirectUris: [CALLBACK] });
  const document = await (await fetch(`${provider.url}/openapi.json`)).json();
  const converted = await manifestFromOpenApi(document, { origin: "fake provider", documentUrl: `${provider.url}/openapi.json`, providerId: "fakeprov", allowPrivateNetwork: true, priceCredits: 1 });
  await importCatalog(database.db, converted.manifest);
  tools = Object.fromEntries(converted.manifest.providers[0].tools.map((t) => [(t.execution as { operation_id: string }).operation_id, t.id]));
  await setOauthApp(database.db, "fakeprov", provider.clientId, provider.clientSecret);
  server = await startTestServer(database);
});

afterAll(async () => {
  restoreLogs();
  await provider.close();
});

describe("importing an OpenAPI document with an oauth2 scheme", () => {
  it("makes an OAuth connection provider whose operations need the caller's connection with their scopes", async () => {
    const document = await (await fetch(`${provider.url}/openapi.json`)).json();
    const converted = await manifestFromOpenApi(document, { origin: "fake provider", documentUrl: `${provider.url}/openapi.json`, providerId: "fakeprov" });
    const p = converted.manifest.providers[0];
    expect(p.connection).toMatchObject({ type: "oauth2", authorization_url: provider.authorizationUrl, token_url: provider.tokenUrl });
    const list = p.tools.find((t) => t.id === tools.listItems)!;
    expect((list.execution as { security: unknown }).security).toEqual([[{ scheme: "oauth", type: "bearer", connection: true, scopes: ["items:read"] }]]);
    expect(converted.credentials).toContainEqual(expect.objectContaining({ scheme: "oauth", connection: true }));
    // --auth-env for the scheme keeps today's meaning: the operator's token for every caller.
    const server = await manifestFromOpenApi(document, { origin: "fake provider", documentUrl: `${provider.url}/openapi.json`, providerId: "fakeprov", schemeEnv: { oauth: "FAKE_TOKEN" } });
    expect(server.manifest.providers[0].connection).toBeUndefined();
    expect((server.manifest.providers[0].tools[0].execution as { security: unknown }).security).toEqual([[expect.objectContaining({ env: "FAKE_TOKEN" })]]);
  });
});

describe("a Call as the user", () => {
  let alice: User;

  beforeAll(async () => {
    alice = await seedUser();
  });

  it("without a connection answers oauth_signin_required, sends nothing and charges nothing; Probe says the same", async () => {
    const before = provider.resourceRequests.length;
    const res = await call(alice, tools.listItems, { q: "x" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      success: false,
      cost: 0,
      execution_outcome: { reason_code: "oauth_signin_required", charge_outcome: "failed_not_charged" },
      result: { data: {}, provider_id: "fakeprov", scopes: ["items:read"] },
    });
    const signin = new URL(res.body.result.signin_url);
    expect(signin.pathname).toBe("/connections/connect");
    expect(Object.fromEntries(signin.searchParams)).toMatchObject({ provider: "fakeprov", scope: "items:read", for: alice.userId });
    expect(provider.resourceRequests.length).toBe(before);
    const [execution] = await database.db.select().from(executions).where(eq(executions.id, res.body.execution_id));
    expect(execution).toMatchObject({ reasonCode: "oauth_signin_required", chargeOutcome: "failed_not_charged", settledCredits: "0.000000" });
    expect(await database.db.select().from(creditsLedger).where(eq(creditsLedger.executionId, res.body.execution_id))).toEqual([]);

    const probe = await fetch(`${server.url}/api/v1/tools/probe?tool_id=${encodeURIComponent(tools.listItems)}`, { method: "POST", headers: { ...bearer(alice.apiKey), "content-type": "application/json" }, body: JSON.stringify({ parameters: {} }) });
    expect(await probe.json()).toMatchObject({ executed: false, charged: false, readiness: { callable: false, reason_code: "oauth_signin_required", provider_id: "fakeprov", signin_url: expect.stringContaining("/connections/connect?") } });

    const found = await api("POST", "/tools/by-ids", alice.apiKey, { tool_ids: [tools.listItems] });
    expect(found.body.results[0]).toMatchObject({ requires_connection: { provider_id: "fakeprov", kind: "oauth2", scopes: ["items:read"] } });
  });

  it("connects through the provider's consent page and the Call acts with the user's token", async () => {
    const back = await connect(alice);
    expect(back.status).toBe(302);
    expect(back.location).toBe("/console?tool=x&connected=fakeprov");
    const listed = await api("GET", "/auth/connections", alice.accessToken);
    expect(listed.body.data.connections).toEqual([
      expect.objectContaining({ provider_id: "fakeprov", kind: "oauth2", owner: "user", user_id: alice.userId, scopes: ["profile", "items:read"], status: "active" }),
    ]);
    expect(listed.body.data.providers).toContainEqual(expect.objectContaining({ provider_id: "fakeprov", kind: "oauth2", ready: true }));

    const res = await call(alice, tools.listItems, { q: "mine" });
    expect(res.body).toMatchObject({ success: true, cost: 1, result: { data: { items: [{ owner: "alice", q: "mine" }] } }, execution_outcome: { charge_outcome: "charged" } });
    const seen = provider.resourceRequests.at(-1)!;
    expect(seen.authorization).toMatch(/^Bearer fat_/);
    const [activity] = await database.db.select().from(accountActivity).where(and(eq(accountActivity.accountId, alice.accountId), eq(accountActivity.action, "connection.connected")));
    expect(activity.after).toMatchObject({ provider_id: "fakeprov", scopes: ["profile", "items:read"] });
  });

  it("an operation needing a scope the connection lacks asks to connect again with both", async () => {
    const res = await call(alice, tools.createItem, { name: "n" });
    expect(res.body).toMatchObject({ execution_outcome: { reason_code: "oauth_signin_required" }, result: { scopes: ["profile", "items:read", "items:write"] } });
  });

  it("an expired token is refreshed once after the provider's 401 and the Call goes through", async () => {
    provider.expireAccessTokens();
    const refreshes = provider.refreshCount();
    const res = await call(alice, tools.listItems, { q: "again" });
    expect(res.body).toMatchObject({ success: true, result: { data: { items: [{ owner: "alice" }] } } });
    expect(provider.refreshCount()).toBe(refreshes + 1);
    const [row] = await database.db.select().from(connections).where(eq(connections.accountId, alice.accountId));
    expect(row.lastRefreshedAt).not.toBeNull();
    expect(row.accessToken).toMatch(/^v1\./);
  });

  it("a token revoked at the provider: the next Call answers oauth_signin_required, marks the connection and tells the account; reconnecting restores it", async () => {
    provider.revokeUser("alice");
    const res = await call(alice, tools.listItems, { q: "revoked" });
    expect(res.body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "oauth_signin_required", charge_outcome: "failed_not_charged" }, result: { provider_id: "fakeprov", signin_url: expect.any(String) } });
    // Signing in again asks for everything the connection had, not only this operation's scope.
    expect(res.body.result.scopes).toEqual(["profile", "items:read"]);
    const [row] = await database.db.select().from(connections).where(eq(connections.accountId, alice.accountId));
    expect(row).toMatchObject({ status: "needs_reauth", statusReason: expect.stringContaining("invalid_grant") });
    const told = await database.db.select().from(notifications).where(and(eq(notifications.accountId, alice.accountId), eq(notifications.kind, "connection_needs_reauth")));
    expect(told).toHaveLength(1);
    // Until reconnected, nothing is sent.
    const before = provider.resourceRequests.length;
    const still = await call(alice, tools.listItems, { q: "still" });
    expect(still.body).toMatchObject({ execution_outcome: { reason_code: "oauth_signin_required" }, result: { scopes: ["profile", "items:read"] } });
    expect(provider.resourceRequests.length).toBe(before);

    expect((await connect(alice)).status).toBe(302);
    expect((await call(alice, tools.listItems, { q: "back" })).body).toMatchObject({ success: true });
    const actions = await database.db.select({ action: accountActivity.action }).from(accountActivity).where(eq(accountActivity.accountId, alice.accountId));
    expect(actions.map((a) => a.action)).toEqual(expect.arrayContaining(["connection.connected", "connection.needs_reauth", "connection.reconnected"]));
  });

  it("another account's Call never uses this connection, even for the same provider user", async () => {
    const bob = await seedUser("10");
    const before = provider.resourceRequests.length;
    const res = await call(bob, tools.listItems, { q: "x" });
    expect(res.body.execution_outcome.reason_code).toBe("oauth_signin_required");
    expect(res.body.result.signin_url).toContain(`for=${bob.userId}`);
    expect(provider.resourceRequests.length).toBe(before);
    const theirs = await api("GET", "/auth/connections", bob.accessToken);
    expect(theirs.body.data.connections).toEqual([]);
    const alices = (await database.db.select().from(connections).where(eq(connections.accountId, alice.accountId)))[0].id;
    expect((await api("DELETE", `/auth/connections/${alices}`, bob.accessToken)).status).toBe(404);
    // Support investigates accounts but never acts with their connections: it reads its own account's list, connects nothing, disconnects nothing.
    const support = await seedAccount(database.db, { role: "support" });
    const seen = await api("GET", "/auth/connections", support.accessToken);
    expect(seen.status).toBe(200);
    expect(JSON.stringify(seen.body)).not.toContain(alices);
    expect((await api("POST", "/auth/connections", support.accessToken, { provider_id: "fakeprov" })).status).toBe(403);
    expect((await api("DELETE", `/auth/connections/${alices}`, support.accessToken)).status).toBe(403);
    expect((await database.db.select().from(connections).where(eq(connections.id, alices)))[0].status).toBe("active");
  });

  it("disconnecting revokes at the provider and deletes the tokens", async () => {
    const [row] = await database.db.select().from(connections).where(eq(connections.accountId, alice.accountId));
    const revocations = provider.revocations.length;
    const res = await api("DELETE", `/auth/connections/${row.id}`, alice.accessToken);
    expect(res.body.data).toMatchObject({ connection_id: row.id, status: "revoked", revoked_at_provider: true });
    expect(provider.revocations.length).toBeGreaterThan(revocations);
    const [after] = await database.db.select().from(connections).where(eq(connections.id, row.id));
    expect(after).toMatchObject({ status: "revoked", accessToken: null, refreshToken: null });
    expect((await call(alice, tools.listItems, { q: "gone" })).body.execution_outcome.reason_code).toBe("oauth_signin_required");
  });
});

describe("the connect flow's state", () => {
  it("is single-use, bound to the user who started it, and a browser signed out is sent to sign in first", async () => {
    const carol = await seedAccount(database.db, { credits: "10" });
    const mallory = await seedAccount(database.db, { credits: "10" });
    const started = await api("POST", "/auth/connections", carol.accessToken, { provider_id: "fakeprov", scopes: ["profile"] });
    const authorizationUrl = new URL(started.body.data.authorization_url);
    const decided = await fetch(provider.authorizationUrl, { method: "POST", body: new URLSearchParams({ ...Object.fromEntries(authorizationUrl.searchParams), user: "carol", decision: "allow" }), redirect: "manual" });
    const search = new URL(decided.headers.get("location")!).search;

    const signedOut = await callback(search, null);
    expect(signedOut.status).toBe(302);
    expect(signedOut.location).toMatch(/^\/login\?callbackUrl=%2Fapi%2Fv1%2Fconnections%2Fcallback%3F/);

    const stolen = await callback(search, mallory);
    expect(stolen.status).toBe(403);
    expect(stolen.text).toContain("another user");
    expect(await database.db.select().from(connections).where(eq(connections.accountId, mallory.accountId))).toEqual([]);

    // The refused attempt spent the state: the rightful user starts again.
    const replay = await callback(search, carol);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain("expired or was already used");
  });

  it("refuses what is not the caller's to do: unknown providers, sharing as a member, support connecting", async () => {
    const owner = await seedAccount(database.db, { credits: "10" });
    expect((await api("POST", "/auth/connections", owner.accessToken, { provider_id: "nope" })).status).toBe(404);
    expect((await api("POST", "/auth/connections", owner.accessToken, { provider_id: "fakeprov", secret: { value: "x" } })).status).toBe(400);
    expect((await api("POST", "/auth/connections", owner.accessToken, { provider_id: "fakeprov", scopes: ["root"] })).status).toBe(400);
    const { user_id: memberId } = await createUser(database.db, { accountId: owner.accountId, email: `m-${owner.accountId}@example.test`, password: "correct horse battery", role: "member" });
    const { accessToken: memberToken } = await issueAccessToken(database.db, { userId: memberId, accountId: owner.accountId, role: "member", scope: DEFAULT_SCOPE, ttlSeconds: 600 });
    expect((await api("POST", "/auth/connections", memberToken, { provider_id: "fakeprov", shared: true })).status).toBe(403);
    expect((await api("PUT", "/auth/connections/sharing", owner.accessToken, { sharing: "members" })).body.data).toEqual({ sharing: "members" });
    expect((await api("POST", "/auth/connections", memberToken, { provider_id: "fakeprov", shared: true })).status).toBe(200);
    expect((await api("PUT", "/auth/connections/sharing", memberToken, { sharing: "owners" })).status).toBe(403);
  });
});

describe("the flow's edges", () => {
  it("an expired state is refused, and the provider's token endpoint is reached only through the outbound guard", async () => {
    const frank = await seedUser("10");
    const started = await api("POST", "/auth/connections", frank.accessToken, { provider_id: "fakeprov", scopes: ["profile"] });
    const authorizationUrl = new URL(started.body.data.authorization_url);
    const decide = async (url: URL) =>
      new URL(
        (await fetch(provider.authorizationUrl, { method: "POST", body: new URLSearchParams({ ...Object.fromEntries(url.searchParams), user: "frank", decision: "allow" }), redirect: "manual" })).headers.get("location")!,
      ).search;
    const search = await decide(authorizationUrl);
    await database.db.execute(sql`UPDATE connection_states SET expires_at = now() - interval '1 second'`);
    const late = await callback(search, frank);
    expect(late.status).toBe(302);
    expect(new URL(late.location!, "http://x").searchParams.get("connect_error")).toMatch(/^This sign-in link has expired/);

    // Without leave to reach private networks, plain-http OAuth endpoints are refused as the operator's to fix (409),
    // and https ones on a private address are refused by the outbound guard: the code is never sent there.
    await database.db.execute(sql`UPDATE providers SET allow_private_network = false WHERE id = 'fakeprov'`);
    try {
      const plain = await api("POST", "/auth/connections", frank.accessToken, { provider_id: "fakeprov", scopes: ["profile"] });
      expect(plain.status).toBe(409);
      expect(plain.body.message).toMatch(/OAuth endpoints must be https/);
      await database.db.execute(
        sql`UPDATE providers SET connection = jsonb_set(jsonb_set(connection, '{authorization_url}', to_jsonb(replace(connection->>'authorization_url', 'http:', 'https:'))), '{token_url}', to_jsonb(replace(connection->>'token_url', 'http:', 'https:'))) WHERE id = 'fakeprov'`,
      );
      const again = await api("POST", "/auth/connections", frank.accessToken, { provider_id: "fakeprov", scopes: ["profile"] });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      const tokenRequests = provider.tokenRequests.length;
      // Without the provider's `iss` (RFC 9207 is optional), which names its http origin.
      const answer = new URLSearchParams((await decide(new URL(again.body.data.authorization_url))).slice(1));
      answer.delete("iss");
      const refused = await callback(`?${answer}`, frank);
      expect(refused.status).toBe(302);
      const why = new URL(refused.location!, "http://x").searchParams.get("connect_error");
      expect(why, why ?? "").toMatch(/^The provider did not complete the connection: .*(private|loopback|not allowed|refused)/i);
      expect(provider.tokenRequests.length).toBe(tokenRequests);
      expect(await database.db.select().from(connections).where(eq(connections.accountId, frank.accountId))).toEqual([]);
    } finally {
      await database.db.execute(
        sql`UPDATE providers SET allow_private_network = true, connection = jsonb_set(jsonb_set(connection, '{authorization_url}', to_jsonb(replace(connection->>'authorization_url', 'https:', 'http:'))), '{token_url}', to_jsonb(replace(connection->>'token_url', 'https:', 'http:'))) WHERE id = 'fakeprov'`,
      );
    }
  });

  it("over MCP, the refusal is a tool error whose text carries the sign-in URL", async () => {
    const grace = await seedUser("10");
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = new Client({ name: "connections-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/v1/mcp`), { requestInit: { headers: bearer(grace.apiKey) } }));
    try {
      const result = (await client.callTool({ name: "call", arguments: { tool_id: tools.listItems, parameters: { q: "x" } } })) as { isError?: boolean; content: { type: string; text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^OAuth sign-in needed before execution: ask the user to open http:\/\/tollgate\.test\/connections\/connect\?provider=fakeprov/);
      expect(JSON.parse(result.content.at(-1)!.text)).toMatchObject({ reason_code: "oauth_signin_required", result: { provider_id: "fakeprov" } });
    } finally {
      await client.close();
    }
  });
});

describe("shared connections and members", () => {
  it("an API key acts with its creator's connection, then the account's shared one; removing the member disconnects theirs", async () => {
    const owner = await seedAccount(database.db, { credits: "50" });
    // The seeded key was made by the CLI (no creator): only the shared connection serves it.
    const noShared = await call(owner, tools.getMe);
    expect(noShared.body.result.signin_url).toContain("shared=1");
    expect((await connect(owner, { scopes: ["profile"], as: "team", shared: true })).status).toBe(302);
    expect((await call(owner, tools.getMe)).body).toMatchObject({ success: true, result: { data: { user: "team" } } });

    const { user_id: dave } = await createUser(database.db, { accountId: owner.accountId, email: `dave-${owner.accountId}@example.test`, password: "correct horse battery", role: "member" });
    const { accessToken } = await issueAccessToken(database.db, { userId: dave, accountId: owner.accountId, role: "member", scope: DEFAULT_SCOPE, ttlSeconds: 600 });
    const key = await api("POST", "/auth/api-keys", accessToken, { name: "dave's agent" });
    const daveUser = { ...owner, userId: dave, accessToken, apiKey: key.body.data.api_key };
    // Dave has no connection of his own: the account's shared one serves his key.
    expect((await call(daveUser, tools.getMe)).body.result.data).toEqual({ user: "team", scopes: ["profile"] });
    expect((await connect(daveUser, { scopes: ["profile"], as: "dave" })).status).toBe(302);
    expect((await call(daveUser, tools.getMe)).body.result.data.user).toBe("dave");

    await removeMember(database.db, { accountId: owner.accountId, userId: dave, actor: OPERATOR, keepKeys: true });
    const [theirs] = await database.db.select().from(connections).where(eq(connections.userId, dave));
    expect(theirs).toMatchObject({ status: "revoked", accessToken: null, refreshToken: null });
    void addMember;
  });
});

describe("a secret connection", () => {
  it("stores the pasted key in the vault and sends it as the operation says", async () => {
    const upstream = await startFakeOAuthProvider({ redirectUris: [CALLBACK] });
    const manifest: ManifestInput = {
      providers: [
        {
          id: "keyed",
          name: "Keyed API",
          transport: "http",
          base_url: `${upstream.url}/api`,
          allow_private_network: true,
          auth: { type: "bearer", connection: true },
          connection: { type: "secret", format: "token", label: "Keyed API key" },
          tools: [{ id: "keyed.me", name: "Who am I", description: "The key's user", execution: { method: "GET", path: "/me" } }],
        },
      ],
    };
    await importManifest(database.db, manifest);
    invalidateToolCache(database.db);
    const erin = await seedUser("10");
    expect((await call(erin, "keyed.me")).body.execution_outcome.reason_code).toBe("oauth_signin_required");
    const made = await api("POST", "/auth/connections", erin.accessToken, { provider_id: "keyed", secret: { value: "sk_pasted_123" } });
    expect(made.body.data).toMatchObject({ kind: "secret", connection: { provider_id: "keyed", kind: "secret", status: "active" } });
    expect(JSON.stringify(made.body)).not.toContain("sk_pasted_123");
    const res = await call(erin, "keyed.me");
    expect(res.body.execution_outcome.reason_code).toBe("provider.auth_or_permission");
    expect(upstream.resourceRequests.at(-1)!.authorization).toBe("Bearer sk_pasted_123");
    const [row] = await database.db.select().from(connections).where(eq(connections.accountId, erin.accountId));
    expect(row.accessToken).not.toContain("sk_pasted_123");
    await upstream.close();
  });
});

describe("secrets stay secret", () => {
  it("no answer and no log line of the runs above holds a token the provider issued", async () => {
    // Restoring stdout hands over the access lines still batched: every line the run logged is searched.
    restoreLogs();
    restoreLogs = () => undefined;
    const tokens = provider.issuedTokens();
    expect(tokens.length).toBeGreaterThan(4);
    expect(logLines.join("")).toContain('"path":"/api/v1/connections/callback"');
    const haystack = [...answers, ...logLines].join("\n");
    // The run logged (the refused callback, the connection needing sign-in): those lines are searched too.
    expect(logLines.join("")).toContain("connection needs its user to sign in again");
    const secrets = [...tokens, "sk_pasted_123", provider.clientSecret];
    const lines = logLines.join("").split("\n").filter(Boolean).length;
    console.log(`secrets search: ${secrets.length} secret values, ${answers.length} API answers and ${lines} log lines (${haystack.length} characters): found none`);
    for (const token of secrets) expect(haystack.includes(token), token.slice(0, 8)).toBe(false);
    // And the database holds none in the clear.
    const dump = JSON.stringify(await database.db.execute(sql`SELECT * FROM connections`));
    for (const token of tokens) expect(dump.includes(token)).toBe(false);
  });
});

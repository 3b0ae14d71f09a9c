import * as oauth from "oauth4webapi";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import { eq, sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { assertLedgerInvariants } from "../testing/invariants";
import { basic, form, oauthFailure, registerClient, startOAuthHarness, type OAuthHarness, type RegisteredClient } from "../testing/oauth";
import { creditsLedger, delegationSpend, executions, usageEvents } from "../db/schema";
import { rows } from "../db/row-sql";
import { apiAudience } from "../auth/issuer";
import { issueAccessToken } from "../auth/jwt";
import type { Database } from "../db/types";
import { decideDeviceAuthorization } from "./device";
import { ACCESS_TOKEN_TYPE } from "./token-exchange";

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const RS = "https://reports.example/api";
const LOAN = "builtin.finance.loan_payment"; // 1 credit per successful call
const LOAN_PARAMS = { principal: 1000, annual_rate_percent: 5, months: 12 };
const SLUGIFY = "builtin.text.slugify"; // free

let database: Database;
let h: OAuthHarness;
let runtime: RegisteredClient;
let reports: RegisteredClient;
let cli: RegisteredClient;

beforeAll(async () => {
  database = await createTestDatabase({ poolSize: 20 });
  await importDemoCatalog(database.db);
  h = await startOAuthHarness(database);
  runtime = await registerClient(database.db, { name: "Agent runtime", type: "confidential", agentRuntime: true });
  reports = await registerClient(database.db, { name: "Reports API", type: "confidential", resourceServer: true, resources: [RS] });
  cli = await registerClient(database.db, { name: "Agent CLI", type: "public", grants: ["device_code", "refresh_token"] });
});

type User = Awaited<ReturnType<typeof seedAccount>>;
const newUser = (credits = "100") => seedAccount(database.db, { credits });

async function userToken(user: User, scope: string, ttlSeconds = 600) {
  return (await issueAccessToken(database.db, { userId: user.userId, accountId: user.accountId, role: "owner", scope, ttlSeconds })).accessToken;
}

function exchangeParams(subjectToken: string, extra: Record<string, string | string[]> = {}): string[][] {
  const base: Record<string, string | string[]> = {
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    resource: apiAudience(),
    scope: "tools:execute",
    ...extra,
  };
  return Object.entries(base).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]));
}

const exchange = (subjectToken: string, extra: Record<string, string | string[]> = {}, client: RegisteredClient = runtime) =>
  oauth
    .genericTokenEndpointRequest(h.as, client.client, client.auth, TOKEN_EXCHANGE, exchangeParams(subjectToken, extra), h.http)
    .then((res) => oauth.processGenericTokenEndpointResponse(h.as, client.client, res));

/** The raw token endpoint, for requests oauth4webapi would not build. */
const rawToken = (body: URLSearchParams, headers: Record<string, string> = {}) =>
  h.fetch(h.as.token_endpoint!, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body });

async function call(token: string, toolId: string, parameters: Record<string, unknown>, body: Record<string, unknown> = {}) {
  const res = await h.fetch(`${apiAudience()}/tools/execute`, {
    method: "POST",
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters, ...body }),
  });
  return { status: res.status, body: (await res.json()) as { success: boolean; execution_id?: string; error_message: string | null; message?: string } };
}

describe("token exchange (RFC 8693) driven by oauth4webapi", () => {
  it("issues a delegation token with the requested claims, audience and no refresh token", async () => {
    const user = await newUser();
    const subject = await userToken(user, "tools:read tools:execute usage:read");
    const tokens = await exchange(subject, {
      scope: "tools:execute",
      model: "gpt-test",
      run_id: "run-42",
      max_credits: "25",
      tool_ids: [LOAN, SLUGIFY],
      provider_ids: "tollgate-builtin",
    });
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.issued_token_type).toBe(ACCESS_TOKEN_TYPE);
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe("tools:execute");
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      sub: user.userId,
      acct: user.accountId,
      aud: apiAudience(),
      token_use: "delegation",
      client_id: runtime.client.client_id,
      model: "gpt-test",
      run_id: "run-42",
      max_credits: 25,
      tool_ids: [LOAN, SLUGIFY],
      provider_ids: ["tollgate-builtin"],
      parent_jti: decodeJwt(subject).jti,
    });
    const spend = await database.db.select().from(delegationSpend).where(eq(delegationSpend.jti, claims.jti!));
    expect(spend[0]).toMatchObject({ accountId: user.accountId, maxCredits: "25.000000", spentCredits: "0.000000" });
  });

  it("caps the lifetime at 600 s, and never beyond the subject token's own expiry", async () => {
    const user = await newUser();
    const long = decodeJwt((await exchange(await userToken(user, "tools:execute", 3600))).access_token);
    expect(long.exp! - long.iat!).toBe(600);
    const short = await exchange(await userToken(user, "tools:execute", 120));
    expect(short.expires_in).toBeLessThanOrEqual(120);
    const claims = decodeJwt(short.access_token);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(120);
  });

  it("requires subject_token, subject_token_type, resource and scope together (400 invalid_request)", async () => {
    const subject = await userToken(await newUser(), "tools:execute");
    for (const missing of ["subject_token", "subject_token_type", "resource", "scope"]) {
      const fields = Object.fromEntries(exchangeParams(subject).filter(([k]) => k !== missing));
      const res = await rawToken(form({ grant_type: TOKEN_EXCHANGE, ...fields }), { authorization: basic(runtime.client.client_id, runtime.secret!) });
      expect(res.status, missing).toBe(400);
      expect(await res.json()).toEqual({ error: "invalid_request", error_description: `${missing} is required` });
    }
  });

  it("refuses every client but an authenticated Agent Runtime", async () => {
    const subject = await userToken(await newUser(), "tools:execute");
    const publicClient = await registerClient(database.db, { name: "Public", type: "public", grants: ["device_code"] });
    expect(await oauthFailure(exchange(subject, {}, publicClient))).toMatchObject({ status: 401, error: "invalid_client" });
    const confidential = await registerClient(database.db, { name: "Not a runtime", type: "confidential", grants: ["token_exchange"] });
    expect(await oauthFailure(exchange(subject, {}, confidential))).toMatchObject({ status: 400, error: "unauthorized_client" });
    const wrongSecret = { ...runtime, auth: oauth.ClientSecretBasic("nope") };
    expect(await oauthFailure(exchange(subject, {}, wrongSecret))).toMatchObject({ status: 401, error: "invalid_client" });
    const noAuth = await rawToken(form({ grant_type: TOKEN_EXCHANGE, ...Object.fromEntries(exchangeParams(subject)), client_id: runtime.client.client_id }));
    expect(noAuth.status).toBe(401);
    expect(noAuth.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("is 403 insufficient_scope when the subject token lacks a requested scope", async () => {
    const subject = await userToken(await newUser(), "tools:read usage:read");
    expect(await oauthFailure(exchange(subject, { scope: "tools:execute" }))).toMatchObject({ status: 403, error: "insufficient_scope" });
    expect((await exchange(subject, { scope: "tools:read" })).scope).toBe("tools:read");
  });

  it("rejects an invalid, revoked or delegation subject token with 401, and a wrong token type with 400", async () => {
    const user = await newUser();
    expect(await oauthFailure(exchange("not.a.jwt"))).toMatchObject({ status: 401, error: "invalid_request" });
    const delegation = await exchange(await userToken(user, "tools:execute"));
    expect(await oauthFailure(exchange(delegation.access_token))).toMatchObject({ status: 401, error: "invalid_request" });
    const subject = await userToken(user, "tools:execute");
    await database.db.execute(sql`INSERT INTO revoked_tokens (jti, expires_at) VALUES (${decodeJwt(subject).jti!}, now() + interval '1 hour')`);
    expect(await oauthFailure(exchange(subject))).toMatchObject({ status: 401, error: "invalid_request" });
    const fresh = await userToken(user, "tools:execute");
    expect(await oauthFailure(exchange(fresh, { subject_token_type: "urn:ietf:params:oauth:token-type:jwt" }))).toMatchObject({ status: 400, error: "invalid_request" });
    expect(await oauthFailure(exchange(fresh, { resource: "https://unknown.example/" }))).toMatchObject({ status: 400, error: "invalid_target" });
  });

  it("answers 422 for claims outside the contract's bounds", async () => {
    const subject = await userToken(await newUser(), "tools:execute");
    const cases: Record<string, string | string[]>[] = [
      { model: "m".repeat(129) },
      { run_id: "r".repeat(129) },
      { max_credits: "0" },
      { max_credits: "1.5" },
      { max_credits: "ten" },
      { tool_ids: Array.from({ length: 101 }, (_, i) => `builtin.t${i}`) },
      { provider_ids: Array.from({ length: 101 }, (_, i) => `p${i}`) },
    ];
    for (const extra of cases) {
      expect(await oauthFailure(exchange(subject, extra)), JSON.stringify(extra).slice(0, 60)).toMatchObject({ status: 422, error: "invalid_request" });
    }
    // At the bounds: accepted.
    const ok = await exchange(subject, { model: "m".repeat(128), run_id: "r".repeat(128), max_credits: "1", tool_ids: Array.from({ length: 100 }, (_, i) => `builtin.t${i}`) });
    expect(ok.access_token).toBeDefined();
  });
});

/** A user's tokens from a real grant: the device flow, with a refresh token. */
async function grantedTokens(user: User) {
  const started = await oauth
    .deviceAuthorizationRequest(h.as, cli.client, cli.auth, { scope: "tools:read tools:execute" }, h.http)
    .then((res) => oauth.processDeviceAuthorizationResponse(h.as, cli.client, res));
  await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: true });
  return oauth.deviceCodeGrantRequest(h.as, cli.client, cli.auth, started.device_code, h.http).then((res) => oauth.processDeviceCodeResponse(h.as, cli.client, res));
}

const refresh = (refreshToken: string) =>
  oauth.refreshTokenGrantRequest(h.as, cli.client, cli.auth, refreshToken, h.http).then((res) => oauth.processRefreshTokenResponse(h.as, cli.client, res));

const revoke = (token: string) => oauth.revocationRequest(h.as, cli.client, cli.auth, token, h.http).then(oauth.processRevocationResponse);

/** Delegation tokens exchanged from one subject token: one for Call (this API), one for the Reports API (introspection). */
async function delegationsFrom(subjectToken: string) {
  return { call: (await exchange(subjectToken)).access_token, introspect: (await exchange(subjectToken, { resource: RS })).access_token };
}
type Delegations = Awaited<ReturnType<typeof delegationsFrom>>;

async function introspect(token: string) {
  const res = await h.fetch(h.as.introspection_endpoint!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(reports.client.client_id, reports.secret!) },
    body: form({ token, resource: RS }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function expectAccepted(d: Delegations) {
  expect((await call(d.call, SLUGIFY, { text: "x" })).status).toBe(200);
  expect(await introspect(d.introspect)).toMatchObject({ active: true });
}

async function expectRefused(d: Delegations) {
  const refused = await call(d.call, SLUGIFY, { text: "x" });
  expect(refused.status).toBe(401);
  expect(refused.body.message).toBe("The access token this delegation token was exchanged from has been revoked");
  expect(await introspect(d.introspect)).toStrictEqual({ active: false });
}

describe("delegation tokens die with the grant they came from", () => {
  it("revoking the subject access token refuses its delegation tokens at Call and introspection", async () => {
    const tokens = await grantedTokens(await newUser());
    const delegations = await delegationsFrom(tokens.access_token);
    await expectAccepted(delegations);
    await revoke(tokens.access_token);
    await expectRefused(delegations);
  });

  it("reuse of a rotated refresh token revokes the family, and the delegation tokens of each of its access tokens", async () => {
    const first = await grantedTokens(await newUser());
    const fromFirst = await delegationsFrom(first.access_token);
    const second = await refresh(first.refresh_token!);
    const fromSecond = await delegationsFrom(second.access_token);
    await expectAccepted(fromFirst);
    await expectAccepted(fromSecond);
    expect(await oauthFailure(refresh(first.refresh_token!))).toMatchObject({ status: 400, error: "invalid_grant" });
    await expectRefused(fromFirst);
    await expectRefused(fromSecond);
  });

  it("revoking the refresh token at the revocation endpoint refuses the delegation tokens of its family", async () => {
    const tokens = await grantedTokens(await newUser());
    const delegations = await delegationsFrom(tokens.access_token);
    await expectAccepted(delegations);
    await revoke(tokens.refresh_token!);
    await expectRefused(delegations);
  });

  it("revoking one subject token leaves the delegation tokens of another token of the same user working", async () => {
    const user = await newUser();
    const revoked = await grantedTokens(user);
    const kept = await delegationsFrom((await grantedTokens(user)).access_token);
    await revoke(revoked.access_token);
    await expectAccepted(kept);
  });
});

describe("delegation tokens at Call", () => {
  it("a delegated Call succeeds; its execution, usage event and ledger row record run_id and model", async () => {
    const user = await newUser();
    const { access_token } = await exchange(await userToken(user, "tools:execute"), { model: "agent-model", run_id: "run-7", max_credits: "5" });
    const res = await call(access_token, LOAN, LOAN_PARAMS, { model: "body-model" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const executionId = res.body.execution_id!;
    const [execution] = await database.db.select().from(executions).where(eq(executions.id, executionId));
    expect(execution).toMatchObject({ runId: "run-7", model: "agent-model", delegationJti: decodeJwt(access_token).jti, apiKeyId: null });
    const [event] = await database.db.select().from(usageEvents).where(eq(usageEvents.executionId, executionId));
    expect(event).toMatchObject({ runId: "run-7", model: "agent-model", userId: user.userId, chargeOutcome: "charged" });
    const [ledger] = await database.db.select().from(creditsLedger).where(eq(creditsLedger.executionId, executionId));
    expect(ledger.ledgerMetadata).toMatchObject({ run_id: "run-7", model: "agent-model" });
    const [spend] = await database.db.select().from(delegationSpend).where(eq(delegationSpend.jti, decodeJwt(access_token).jti!));
    expect(spend.spentCredits).toBe("1.000000");
    await assertLedgerInvariants(database.db, user.accountId);
  });

  it("a tool or provider outside the token's lists is refused with 403", async () => {
    const user = await newUser();
    const byTool = await exchange(await userToken(user, "tools:execute"), { tool_ids: SLUGIFY });
    expect((await call(byTool.access_token, SLUGIFY, { text: "Hello World" })).status).toBe(200);
    const denied = await call(byTool.access_token, LOAN, LOAN_PARAMS);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ success: false });
    expect(denied.body.error_message).toContain(LOAN);

    const byProvider = await exchange(await userToken(user, "tools:execute"), { provider_ids: "some-other-provider" });
    expect((await call(byProvider.access_token, SLUGIFY, { text: "x" })).status).toBe(403);
    await assertLedgerInvariants(database.db, user.accountId);
  });

  it("a user's access token, a token without tools:execute and a token for another audience are not Call credentials", async () => {
    const user = await newUser();
    const accessToken = await userToken(user, "tools:execute");
    expect((await call(accessToken, SLUGIFY, { text: "x" })).status).toBe(401);
    const readOnly = await exchange(await userToken(user, "tools:read tools:execute"), { scope: "tools:read" });
    const noScope = await call(readOnly.access_token, SLUGIFY, { text: "x" });
    expect(noScope.status).toBe(403);
    const elsewhere = await exchange(await userToken(user, "tools:execute"), { resource: RS });
    expect((await call(elsewhere.access_token, SLUGIFY, { text: "x" })).status).toBe(401);
  });

  it("a revoked delegation token stops working at Call", async () => {
    const user = await newUser();
    const { access_token } = await exchange(await userToken(user, "tools:execute"));
    expect((await call(access_token, SLUGIFY, { text: "x" })).status).toBe(200);
    await oauth.revocationRequest(h.as, runtime.client, runtime.auth, access_token, h.http).then(oauth.processRevocationResponse);
    const after = await call(access_token, SLUGIFY, { text: "x" });
    expect(after.status).toBe(401);
    expect(after.body.message).toContain("revoked");
  });

  it(`never charges more than max_credits, also under 50 concurrent Calls`, async () => {
    const user = await newUser("100");
    const { access_token } = await exchange(await userToken(user, "tools:execute"), { max_credits: "7", run_id: "burst" });
    const results = await Promise.all(Array.from({ length: 50 }, () => call(access_token, LOAN, LOAN_PARAMS)));
    const ok = results.filter((r) => r.status === 200 && r.body.success);
    const capped = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(7);
    expect(capped).toHaveLength(43);
    for (const r of capped) expect(r.body.error_message).toContain("max_credits");

    const jti = decodeJwt(access_token).jti!;
    const [spend] = await database.db.select().from(delegationSpend).where(eq(delegationSpend.jti, jti));
    expect(spend).toMatchObject({ spentCredits: "7.000000", reservedCredits: "0.000000" });
    const charged = rows<{ total: string }>(
      await database.db.execute(sql`SELECT coalesce(sum(amount_credits), 0)::text AS total FROM credits_ledger l JOIN executions e ON e.id = l.execution_id WHERE e.delegation_jti = ${jti}`),
    )[0];
    expect(Number(charged.total)).toBe(-7);
    await assertLedgerInvariants(database.db, user.accountId);
  });
});

import * as oauth from "oauth4webapi";
import { beforeAll, describe, expect, it } from "vitest";
import { SignJWT, decodeJwt, generateKeyPair } from "jose";
import { createTestDatabase } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { basic, form, oauthFailure, registerClient, startOAuthHarness, type OAuthHarness, type RegisteredClient } from "../testing/oauth";
import { apiAudience } from "../auth/issuer";
import { issueAccessToken } from "../auth/jwt";
import type { Database } from "../db/types";
import { decideDeviceAuthorization } from "./device";
import { ACCESS_TOKEN_TYPE } from "./token-exchange";

const RS = "https://reports.example/api";
const RS2 = "https://billing.example/api";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

let database: Database;
let h: OAuthHarness;
let reports: RegisteredClient;
let runtime: RegisteredClient;
let cli: RegisteredClient;
let user: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startOAuthHarness(database);
  reports = await registerClient(database.db, { name: "Reports API", type: "confidential", resourceServer: true, resources: [RS] });
  await registerClient(database.db, { name: "Billing API", type: "confidential", resourceServer: true, resources: [RS2] });
  runtime = await registerClient(database.db, { name: "Agent runtime", type: "confidential", agentRuntime: true });
  cli = await registerClient(database.db, { name: "CLI", type: "public", grants: ["device_code", "refresh_token"] });
  user = await seedAccount(database.db, { credits: "10" });
});

/** A delegation token for `resource`, from the token exchange. */
async function delegationFor(resource: string, extra: Record<string, string> = {}) {
  const params = { subject_token: user.accessToken, subject_token_type: ACCESS_TOKEN_TYPE, resource, scope: "tools:execute", ...extra };
  const res = await oauth.genericTokenEndpointRequest(h.as, runtime.client, runtime.auth, TOKEN_EXCHANGE, params, h.http);
  return (await oauth.processGenericTokenEndpointResponse(h.as, runtime.client, res)).access_token;
}

/** Tokens for the CLI client through the device flow; `resource` sets their audience. */
async function cliTokens(resource?: string) {
  const started = await oauth
    .deviceAuthorizationRequest(h.as, cli.client, cli.auth, { scope: "usage:read", ...(resource ? { resource } : {}) }, h.http)
    .then((res) => oauth.processDeviceAuthorizationResponse(h.as, cli.client, res));
  await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: true });
  return oauth
    .deviceCodeGrantRequest(h.as, cli.client, cli.auth, started.device_code, h.http)
    .then((res) => oauth.processDeviceCodeResponse(h.as, cli.client, res));
}

/** The raw introspection response: status and exact body. */
async function introspectRaw(token: string, resource: string, client: RegisteredClient = reports) {
  const res = await h.fetch(h.as.introspection_endpoint!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(client.client.client_id, client.secret!) },
    body: form({ token, resource }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const verifyStatus = async (accessToken: string) =>
  (await h.fetch(`${apiAudience()}/auth/verify-token`, { method: "POST", headers: bearer(accessToken) })).status;

describe("introspection (RFC 7662) driven by oauth4webapi", () => {
  it("describes an active delegation token for the resource server's own resource", async () => {
    const token = await delegationFor(RS, { run_id: "run-1", max_credits: "3" });
    const res = await oauth.introspectionRequest(h.as, reports.client, reports.auth, token, { ...h.http, additionalParameters: { resource: RS } });
    const result = await oauth.processIntrospectionResponse(h.as, reports.client, res);
    expect(result).toMatchObject({
      active: true,
      scope: "tools:execute",
      client_id: runtime.client.client_id,
      token_type: "Bearer",
      token_use: "delegation",
      sub: user.userId,
      account_id: user.accountId,
      aud: RS,
      iss: "http://tollgate.test",
      run_id: "run-1",
      max_credits: 3,
    });
    expect(result.exp).toBe(decodeJwt(token).exp);
  });

  it("answers exactly {active: false} for an invalid, expired, revoked, wrong-audience or foreign token", async () => {
    const expired = (await issueAccessToken(database.db, { userId: user.userId, accountId: user.accountId, role: "owner", scope: "tools:execute", ttlSeconds: -60, audience: RS })).accessToken;
    const revoked = await delegationFor(RS);
    await oauth.revocationRequest(h.as, runtime.client, runtime.auth, revoked, h.http).then(oauth.processRevocationResponse);
    const otherAudience = await delegationFor(RS2);
    const { privateKey } = await generateKeyPair("ES256");
    const forged = await new SignJWT({ acct: user.accountId, scope: "tools:execute", token_use: "access" })
      .setProtectedHeader({ alg: "ES256", kid: "forged", typ: "at+jwt" })
      .setIssuer("http://tollgate.test")
      .setSubject(user.userId)
      .setAudience(RS)
      .setJti("forged-jti")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
    const cases: Record<string, string> = {
      garbage: "not-a-token",
      malformed: "a.b.c",
      expired,
      revoked,
      "wrong audience": otherAudience,
      "api audience": user.accessToken,
      forged,
      "refresh token": (await cliTokens()).refresh_token!,
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await introspectRaw(token, RS);
      expect(res.status, name).toBe(200);
      expect(res.body, name).toStrictEqual({ active: false });
    }
  });

  it("answers exactly {active: false} for a user's access token once it is revoked", async () => {
    const { access_token } = await cliTokens(RS);
    expect(await introspectRaw(access_token, RS)).toMatchObject({ status: 200, body: { active: true, token_use: "access", sub: user.userId, aud: RS } });
    await oauth.revocationRequest(h.as, cli.client, cli.auth, access_token, h.http).then(oauth.processRevocationResponse);
    const res = await introspectRaw(access_token, RS);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({ active: false });
  });

  it("refuses clients that are not the resource server of that resource", async () => {
    const token = await delegationFor(RS);
    const notRs = await introspectRaw(token, RS, runtime);
    expect(notRs.status).toBe(403);
    expect(notRs.body.error).toBe("unauthorized_client");
    const otherResource = await introspectRaw(token, RS2);
    expect(otherResource.status).toBe(403);
    const noAuth = await h.fetch(h.as.introspection_endpoint!, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form({ token, resource: RS }) });
    expect(noAuth.status).toBe(401);
    expect(noAuth.headers.get("www-authenticate")).toMatch(/^Basic /);
    const wrongSecret = await h.fetch(h.as.introspection_endpoint!, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(reports.client.client_id, "nope") },
      body: form({ token, resource: RS }),
    });
    expect(wrongSecret.status).toBe(401);
    const noResource = await oauthFailure(
      oauth.introspectionRequest(h.as, reports.client, reports.auth, token, h.http).then((res) => oauth.processIntrospectionResponse(h.as, reports.client, res)),
    );
    expect(noResource).toMatchObject({ status: 400, error: "invalid_request" });
  });
});

describe("revocation (RFC 7009) driven by oauth4webapi", () => {
  const revoke = (token: string, client: RegisteredClient = cli) =>
    oauth.revocationRequest(h.as, client.client, client.auth, token, h.http).then(oauth.processRevocationResponse);

  it("answers 200 {} for an unknown or invalid token", async () => {
    await expect(revoke("tgr_never-issued")).resolves.toBeUndefined();
    const res = await h.fetch(h.as.revocation_endpoint!, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form({ token: "x.y.z", client_id: cli.client.client_id }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({});
  });

  it("revoking a refresh token revokes its family and the access tokens issued with it", async () => {
    const first = await cliTokens();
    const second = await oauth
      .refreshTokenGrantRequest(h.as, cli.client, cli.auth, first.refresh_token!, h.http)
      .then((res) => oauth.processRefreshTokenResponse(h.as, cli.client, res));
    expect(await verifyStatus(second.access_token)).toBe(200);
    await revoke(second.refresh_token!);
    expect(await verifyStatus(second.access_token)).toBe(401);
    expect(await verifyStatus(first.access_token)).toBe(401);
    const again = oauth
      .refreshTokenGrantRequest(h.as, cli.client, cli.auth, second.refresh_token!, h.http)
      .then((res) => oauth.processRefreshTokenResponse(h.as, cli.client, res));
    expect(await oauthFailure(again)).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("a revoked access token fails at JWT endpoints, and a revoked delegation token at introspection", async () => {
    const tokens = await cliTokens();
    await revoke(tokens.access_token);
    expect(await verifyStatus(tokens.access_token)).toBe(401);
    // Its refresh token is untouched: revoking an access token ends only that token.
    expect(await verifyStatus((await oauth.refreshTokenGrantRequest(h.as, cli.client, cli.auth, tokens.refresh_token!, h.http).then((r) => oauth.processRefreshTokenResponse(h.as, cli.client, r))).access_token)).toBe(200);

    const delegation = await delegationFor(RS);
    expect((await introspectRaw(delegation, RS)).body.active).toBe(true);
    await revoke(delegation, runtime);
    expect((await introspectRaw(delegation, RS)).body).toStrictEqual({ active: false });
  });

  it("a client may revoke only its own tokens; a confidential client must authenticate", async () => {
    const tokens = await cliTokens();
    const other = await registerClient(database.db, { name: "Other CLI", type: "public", grants: ["device_code"] });
    expect(await oauthFailure(revoke(tokens.refresh_token!, other))).toMatchObject({ status: 403, error: "unauthorized_client" });
    expect(await oauthFailure(revoke(tokens.access_token, other))).toMatchObject({ status: 403, error: "unauthorized_client" });
    expect(await verifyStatus(tokens.access_token)).toBe(200);
    const asPublic = await h.fetch(h.as.revocation_endpoint!, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ token: tokens.access_token, client_id: runtime.client.client_id }),
    });
    expect(asPublic.status).toBe(401);
    expect((await asPublic.json()).error).toBe("invalid_client");
  });
});

import * as oauth from "oauth4webapi";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { basic, form, oauthFailure, registerClient, startOAuthHarness, type OAuthHarness, type RegisteredClient } from "../testing/oauth";
import { oauthAuthorizationCodes } from "../db/schema";
import { apiAudience } from "../auth/issuer";
import type { Database } from "../db/types";
import { approveAuthorizationRequest, denyAuthorizationRequest, validateAuthorizationRequest, type AuthorizationRequestParams } from "./authorize";

const REDIRECT = "http://127.0.0.1:8765/callback";

let database: Database;
let h: OAuthHarness;
let app: RegisteredClient;
let user: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startOAuthHarness(database);
  app = await registerClient(database.db, { name: "Desktop app", type: "public", redirectUris: [REDIRECT], grants: ["authorization_code", "refresh_token"] });
  user = await seedAccount(database.db, { credits: "10" });
});

interface Started {
  verifier: string;
  state: string;
  /** Where the authorization endpoint sent the browser. */
  location: URL;
}

async function authorize(params: Record<string, string>): Promise<Response> {
  const url = new URL(h.as.authorization_endpoint!);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return h.fetch(url, { redirect: "manual" });
}

async function startAuthorization(client: RegisteredClient = app, extra: Record<string, string> = {}): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const res = await authorize({
    response_type: "code",
    client_id: client.client.client_id,
    redirect_uri: REDIRECT,
    scope: "tools:read usage:read",
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    ...extra,
  });
  expect(res.status).toBe(302);
  return { verifier, state, location: new URL(res.headers.get("location")!) };
}

/** What the consent page does when the signed-in user clicks Allow. */
async function consent(location: URL): Promise<URL> {
  const params = Object.fromEntries(location.searchParams) as AuthorizationRequestParams;
  const check = await validateAuthorizationRequest(database.db, params);
  if (!check.ok) throw new Error("the consent page rejected the request");
  return new URL(await approveAuthorizationRequest(database.db, { request: check.request, userId: user.userId, accountId: user.accountId }));
}

async function codeFor(client: RegisteredClient = app) {
  const started = await startAuthorization(client);
  const callback = oauth.validateAuthResponse(h.as, client.client, await consent(started.location), started.state);
  return { ...started, callback };
}

const exchange = (callback: URLSearchParams, verifier: string, client: RegisteredClient = app, redirectUri = REDIRECT) =>
  oauth
    .authorizationCodeGrantRequest(h.as, client.client, client.auth, callback, redirectUri, verifier, h.http)
    .then((res) => oauth.processAuthorizationCodeResponse(h.as, client.client, res));

const refresh = (token: string, client: RegisteredClient = app, scope?: string) =>
  oauth
    .refreshTokenGrantRequest(h.as, client.client, client.auth, token, { ...h.http, ...(scope ? { additionalParameters: { scope } } : {}) })
    .then((res) => oauth.processRefreshTokenResponse(h.as, client.client, res));

const verifyStatus = async (accessToken: string) =>
  (await h.fetch(`${apiAudience()}/auth/verify-token`, { method: "POST", headers: bearer(accessToken) })).status;

describe("authorization code grant with PKCE, driven by oauth4webapi", () => {
  it("sends the browser to the consent page, then returns code, state and iss to the client", async () => {
    const started = await startAuthorization();
    expect(started.location.origin + started.location.pathname).toBe("http://tollgate.test/oauth/consent");
    expect(started.location.searchParams.get("client_id")).toBe(app.client.client_id);
    const redirect = await consent(started.location);
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT);
    expect(redirect.searchParams.get("iss")).toBe("http://tollgate.test");
    const callback = oauth.validateAuthResponse(h.as, app.client, redirect, started.state);
    const tokens = await exchange(callback, started.verifier);
    expect(tokens.scope).toBe("tools:read usage:read");
    expect(tokens.refresh_token).toBeDefined();
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: user.userId, acct: user.accountId, client_id: app.client.client_id, aud: apiAudience() });
    expect(await verifyStatus(tokens.access_token)).toBe(200);
  });

  it("issues RFC 9068 JWT access tokens that oauth4webapi validates against the published JWKS", async () => {
    const { callback, verifier } = await codeFor();
    const tokens = await exchange(callback, verifier);
    const request = new Request(`${apiAudience()}/auth/verify-token`, { headers: bearer(tokens.access_token) });
    const claims = await oauth.validateJwtAccessToken(h.as, request, apiAudience(), h.http);
    expect(claims.client_id).toBe(app.client.client_id);
    expect(claims.scope).toBe("tools:read usage:read");
  });

  it("a wrong code_verifier is invalid_grant", async () => {
    const { callback } = await codeFor();
    expect(await oauthFailure(exchange(callback, oauth.generateRandomCodeVerifier()))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("a reused code is invalid_grant and revokes the tokens issued with it", async () => {
    const { callback, verifier } = await codeFor();
    const tokens = await exchange(callback, verifier);
    expect(await verifyStatus(tokens.access_token)).toBe(200);
    expect(await oauthFailure(exchange(callback, verifier))).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await verifyStatus(tokens.access_token)).toBe(401);
    expect(await oauthFailure(refresh(tokens.refresh_token!))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("a redirect_uri that differs from the authorization request is invalid_grant", async () => {
    const other = "http://127.0.0.1:8765/other";
    const client = await registerClient(database.db, { name: "Two URIs", type: "public", redirectUris: [REDIRECT, other], grants: ["authorization_code"] });
    const { callback, verifier } = await codeFor(client);
    expect(await oauthFailure(exchange(callback, verifier, client, other))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("a code is bound to its client, and expires", async () => {
    const thief = await registerClient(database.db, { name: "Thief", type: "public", redirectUris: [REDIRECT], grants: ["authorization_code"] });
    const stolen = await codeFor();
    expect(await oauthFailure(exchange(stolen.callback, stolen.verifier, thief))).toMatchObject({ status: 400, error: "invalid_grant" });
    // Presented by another client, the code is not consumed: its own client still gets tokens.
    expect((await exchange(stolen.callback, stolen.verifier)).access_token).toBeDefined();

    const late = await codeFor();
    await database.db.update(oauthAuthorizationCodes).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(oauthAuthorizationCodes.clientId, app.client.client_id));
    expect(await oauthFailure(exchange(late.callback, late.verifier))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("a confidential client authenticates with HTTP Basic; a wrong secret is 401 invalid_client", async () => {
    const web = await registerClient(database.db, { name: "Web backend", type: "confidential", redirectUris: [REDIRECT], grants: ["authorization_code"] });
    const { callback, verifier } = await codeFor(web);
    const impostor = { ...web, auth: oauth.ClientSecretBasic("wrong-secret") };
    const failure = await oauthFailure(exchange(callback, verifier, impostor));
    expect(failure).toMatchObject({ status: 401, error: "invalid_client" });
    // The failed attempt did not burn the code: client authentication comes first.
    const tokens = await exchange(callback, verifier, web);
    expect(tokens.refresh_token).toBeUndefined();
  });

  it("the user's denial comes back as access_denied with the state", async () => {
    const started = await startAuthorization();
    const check = await validateAuthorizationRequest(database.db, Object.fromEntries(started.location.searchParams));
    if (!check.ok) throw new Error("unexpected");
    const redirect = new URL(denyAuthorizationRequest(check.request));
    expect(() => oauth.validateAuthResponse(h.as, app.client, redirect, started.state)).toThrow(oauth.AuthorizationResponseError);
    expect(redirect.searchParams.get("error")).toBe("access_denied");
    expect(redirect.searchParams.get("state")).toBe(started.state);
  });
});

describe("authorization endpoint errors", () => {
  const base = async () => ({
    response_type: "code",
    client_id: app.client.client_id,
    redirect_uri: REDIRECT,
    scope: "tools:read",
    state: "xyz",
    code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    code_challenge_method: "S256",
  });

  it("an unregistered redirect_uri or an unknown client is a 400, never a redirect", async () => {
    const wrongUri = await authorize({ ...(await base()), redirect_uri: "http://127.0.0.1:8765/callback/evil" });
    expect(wrongUri.status).toBe(400);
    expect(wrongUri.headers.get("location")).toBeNull();
    expect((await wrongUri.json()).error).toBe("invalid_request");
    const unknown = await authorize({ ...(await base()), client_id: "cli_unknown" });
    expect(unknown.status).toBe(400);
  });

  it("missing PKCE, plain PKCE, another response_type and an unknown scope go back to the client with the state", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge: "" }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "tools:read root" }, "invalid_scope"],
      [{ resource: "https://unknown.example/" }, "invalid_target"],
    ];
    for (const [override, error] of cases) {
      const params = { ...(await base()), ...override };
      const res = await authorize(Object.fromEntries(Object.entries(params).filter(([, v]) => v !== "")));
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location")!);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("state")).toBe("xyz");
      expect(location.searchParams.get("iss")).toBe("http://tollgate.test");
    }
  });
});

describe("token endpoint request errors", () => {
  const token = (body: URLSearchParams, headers: Record<string, string> = {}) =>
    h.fetch(h.as.token_endpoint!, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body });

  it("a code_verifier outside 43-128 characters is 422; a missing one is 400", async () => {
    const { callback } = await codeFor();
    const short = await token(form({ grant_type: "authorization_code", code: callback.get("code")!, redirect_uri: REDIRECT, code_verifier: "a".repeat(42), client_id: app.client.client_id }));
    expect(short.status).toBe(422);
    expect(await short.json()).toMatchObject({ error: "invalid_request" });
    const long = await token(form({ grant_type: "authorization_code", code: callback.get("code")!, redirect_uri: REDIRECT, code_verifier: "a".repeat(129), client_id: app.client.client_id }));
    expect(long.status).toBe(422);
    const missing = await token(form({ grant_type: "authorization_code", code: callback.get("code")!, redirect_uri: REDIRECT, client_id: app.client.client_id }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "invalid_request", error_description: "code_verifier is required" });
  });

  it("an unknown grant_type is unsupported_grant_type; a missing one invalid_request", async () => {
    const password = await token(form({ grant_type: "password", username: "a", password: "b", client_id: app.client.client_id }));
    expect(password.status).toBe(400);
    expect((await password.json()).error).toBe("unsupported_grant_type");
    const none = await token(form({ client_id: app.client.client_id }));
    expect(none.status).toBe(400);
    expect((await none.json()).error).toBe("invalid_request");
  });

  it("a client not registered for a grant is unauthorized_client; responses are not cacheable", async () => {
    const deviceOnly = await registerClient(database.db, { name: "Device only", type: "public", grants: ["device_code"] });
    const res = await token(form({ grant_type: "refresh_token", refresh_token: "tgr_x", client_id: deviceOnly.client.client_id }));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("unauthorized_client");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("Basic credentials and a different client_id in the body are invalid_request", async () => {
    const web = await registerClient(database.db, { name: "Basic", type: "confidential", redirectUris: [REDIRECT], grants: ["refresh_token"] });
    const res = await token(form({ grant_type: "refresh_token", refresh_token: "tgr_x", client_id: app.client.client_id }), { authorization: basic(web.client.client_id, web.secret!) });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("invalid_request");
  });
});

describe("refresh token rotation (RFC 9700 4.14)", () => {
  it("every refresh returns a new refresh token; the chain keeps working", async () => {
    const { callback, verifier } = await codeFor();
    const first = await exchange(callback, verifier);
    const second = await refresh(first.refresh_token!);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    const third = await refresh(second.refresh_token!);
    expect(await verifyStatus(third.access_token)).toBe(200);
  });

  it("reusing a rotated refresh token revokes the whole family and its access tokens", async () => {
    const { callback, verifier } = await codeFor();
    const first = await exchange(callback, verifier);
    const second = await refresh(first.refresh_token!);
    expect(await oauthFailure(refresh(first.refresh_token!))).toMatchObject({ status: 400, error: "invalid_grant" });
    // The legitimate holder of the newest token is cut off too: the grant is compromised.
    expect(await oauthFailure(refresh(second.refresh_token!))).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await verifyStatus(second.access_token)).toBe(401);
    expect(await verifyStatus(first.access_token)).toBe(401);
  });

  it("a refresh token is bound to its client", async () => {
    const other = await registerClient(database.db, { name: "Other", type: "public", redirectUris: [REDIRECT], grants: ["authorization_code", "refresh_token"] });
    const { callback, verifier } = await codeFor();
    const tokens = await exchange(callback, verifier);
    expect(await oauthFailure(refresh(tokens.refresh_token!, other))).toMatchObject({ status: 400, error: "invalid_grant" });
    // The failed attempt by another client is not a reuse: the owner can still refresh.
    expect((await refresh(tokens.refresh_token!)).access_token).toBeDefined();
  });

  it("may narrow the scope of the access token, never widen it", async () => {
    const { callback, verifier } = await codeFor();
    const tokens = await exchange(callback, verifier);
    const narrowed = await refresh(tokens.refresh_token!, app, "usage:read");
    expect(narrowed.scope).toBe("usage:read");
    // The grant keeps its scope: the next refresh may have both again.
    const again = await refresh(narrowed.refresh_token!);
    expect(again.scope).toBe("tools:read usage:read");
    expect(await oauthFailure(refresh(again.refresh_token!, app, "tools:read tools:execute"))).toMatchObject({ status: 400, error: "invalid_scope" });
  });
});

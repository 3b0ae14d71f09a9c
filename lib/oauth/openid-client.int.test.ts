import { beforeAll, describe, expect, it } from "vitest";
import * as client from "openid-client";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { registerClient, startOAuthHarness, type OAuthHarness } from "../testing/oauth";
import { publicUrl } from "../env";
import { apiAudience } from "../auth/issuer";
import type { Database } from "../db/types";
import { decideDeviceAuthorization } from "./device";
import { approveAuthorizationRequest, validateAuthorizationRequest, type AuthorizationRequestParams } from "./authorize";

/**
 * docs/oauth.md's openid-client 6 snippets, step for step, against the real server: the device
 * flow, code + PKCE, and introspection. The person's step (the /device or consent page) is the
 * domain verb the page calls. The tokens then meet the scopes they were granted.
 */
const REDIRECT = "http://127.0.0.1:8765/callback";

let database: Database;
let h: OAuthHarness;
let user: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startOAuthHarness(database);
  user = await seedAccount(database.db, { credits: "5" });
});

/** The one thing the test adds to the snippets: requests to PUBLIC_URL reach the test server. */
const viaTestServer: client.CustomFetch = (url, options) => h.fetch(url, options as RequestInit);

async function discover(clientId: string, auth?: client.ClientAuth) {
  // Tollgate is an OAuth 2.0 server without OpenID Connect: `algorithm: "oauth2"` reads RFC 8414 metadata.
  const config = await client.discovery(new URL(publicUrl()), clientId, undefined, auth, { algorithm: "oauth2", execute: [client.allowInsecureRequests], [client.customFetch]: viaTestServer });
  config[client.customFetch] = viaTestServer;
  return config;
}

const api = (path: string, token: string, init: RequestInit = {}) => h.fetch(`${publicUrl()}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers } });

describe("openid-client 6, as docs/oauth.md shows it", () => {
  it("the device flow grants what the user approved, and a tools:read token is refused the account's management and history", async () => {
    const cli = await registerClient(database.db, { name: "Terminal agent", type: "public", grants: ["device_code"] });
    const config = await discover(cli.client.client_id);

    const device = await client.initiateDeviceAuthorization(config, { scope: "tools:read" });
    expect(device.verification_uri_complete).toContain("/device?user_code=");
    // The person opens verification_uri_complete and approves.
    expect(await decideDeviceAuthorization(database.db, { userCode: device.user_code, userId: user.userId, accountId: user.accountId, approve: true })).toBe(true);
    const tokens = await client.pollDeviceAuthorizationGrant(config, { ...device, interval: 1 });
    expect(tokens.scope).toBe("tools:read");

    expect((await api("/search", tokens.access_token, { method: "POST", body: JSON.stringify({ query: "convert temperature" }) })).status).toBe(200);
    for (const [path, init] of [
      ["/auth/api-keys", { method: "POST", body: JSON.stringify({ name: "minted by an app" }) }],
      ["/auth/budgets", {}],
      ["/auth/usage/history/v2", {}],
      ["/auth/credits/ledger", {}],
      ["/auth/credits", {}],
      ["/auth/usage/history/v2/export", {}],
      ["/auth/credits/ledger/export", {}],
    ] as const) {
      const res = await api(path, tokens.access_token, init);
      expect(res.status, path).toBe(403);
      expect(res.headers.get("www-authenticate"), path).toContain('error="insufficient_scope"');
    }
  }, 30_000);

  it("code + PKCE, then introspection by a resource server with its resource", async () => {
    const app = await registerClient(database.db, { name: "Desktop app", type: "public", redirectUris: [REDIRECT], grants: ["authorization_code"] });
    const config = await discover(app.client.client_id);

    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: "usage:read ledger:read",
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
    });
    // The browser opens authorizationUrl; the server sends it to the consent page, where the person approves.
    const toConsent = await h.fetch(authorizationUrl.href, { redirect: "manual" });
    expect(toConsent.status).toBe(302);
    const consent = new URL(toConsent.headers.get("location")!, publicUrl());
    const check = await validateAuthorizationRequest(database.db, Object.fromEntries(consent.searchParams) as AuthorizationRequestParams);
    if (!check.ok) throw new Error("the consent page refused the request");
    const callback = new URL(await approveAuthorizationRequest(database.db, { request: check.request, userId: user.userId, accountId: user.accountId }));

    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedState: state });
    expect(tokens.scope).toBe("usage:read ledger:read");
    expect((await api("/auth/usage/history/v2", tokens.access_token)).status).toBe(200);
    expect((await api("/auth/api-keys", tokens.access_token)).status).toBe(403);

    // A resource server checks a token it received; `resource` must be the token's audience and registered.
    const rs = await registerClient(database.db, { name: "Partner API", type: "confidential", resourceServer: true, resources: [apiAudience()] });
    const rsConfig = await discover(rs.client.client_id, client.ClientSecretBasic(rs.secret!));
    const introspected = await client.tokenIntrospection(rsConfig, tokens.access_token, { resource: apiAudience() });
    expect(introspected).toMatchObject({ active: true, scope: "usage:read ledger:read", aud: apiAudience() });
  });
});

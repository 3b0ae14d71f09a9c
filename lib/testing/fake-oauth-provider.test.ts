import crypto from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeOAuthProvider, type FakeOAuthProvider, type FakeOAuthProviderOptions } from "./fake-oauth-provider";

const REDIRECT = "http://tollgate.test/connections/callback";

type TokenBody = { access_token?: string; refresh_token?: string; token_type?: string; expires_in?: number; scope?: string; error?: string };

let provider: FakeOAuthProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function start(options: Partial<FakeOAuthProviderOptions> = {}): Promise<FakeOAuthProvider> {
  provider = await startFakeOAuthProvider({ redirectUris: [REDIRECT], ...options });
  return provider;
}

const decodeHtml = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

function authorizeQuery(p: FakeOAuthProvider, overrides: Record<string, string | null> = {}) {
  const verifier = crypto.randomBytes(32).toString("base64url");
  const fields: Record<string, string | null> = {
    response_type: "code",
    client_id: p.clientId,
    redirect_uri: REDIRECT,
    state: "st-1",
    code_challenge: crypto.createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    ...overrides,
  };
  const query = new URLSearchParams(Object.entries(fields).filter((e): e is [string, string] => e[1] !== null));
  return { url: `${p.authorizationUrl}?${query}`, verifier };
}

/** The consent page's form submitted as a browser would; the redirect is returned, not followed. */
async function consent(p: FakeOAuthProvider, input: { scope?: string; user?: string; decision?: "allow" | "deny" } = {}) {
  const { url, verifier } = authorizeQuery(p, input.scope ? { scope: input.scope } : {});
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const html = await page.text();
  const form = new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], decodeHtml(m[2])]));
  form.set("user", input.user ?? "alice");
  form.set("decision", input.decision ?? "allow");
  const answer = await fetch(p.authorizationUrl, { method: "POST", body: form, redirect: "manual" });
  expect(answer.status).toBe(302);
  return { html, verifier, location: new URL(answer.headers.get("location") ?? "") };
}

async function tokenCall(p: FakeOAuthProvider, fields: Record<string, string>, auth: "basic" | "post" = "basic") {
  const body = new URLSearchParams(fields);
  const headers: Record<string, string> = auth === "basic" ? { authorization: basic(p.clientId, p.clientSecret) } : {};
  if (auth === "post") {
    body.set("client_id", p.clientId);
    body.set("client_secret", p.clientSecret);
  }
  const res = await fetch(p.tokenUrl, { method: "POST", headers, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as TokenBody };
}

/** Consent and code exchange: the tokens a freshly connected account holds. */
async function connect(p: FakeOAuthProvider, input: { scope?: string; user?: string } = {}) {
  const { location, verifier } = await consent(p, input);
  const answer = await tokenCall(p, { grant_type: "authorization_code", code: location.searchParams.get("code") ?? "", redirect_uri: REDIRECT, code_verifier: verifier });
  expect(answer.status).toBe(200);
  return { accessToken: answer.body.access_token ?? "", refreshToken: answer.body.refresh_token ?? "" };
}

const refresh = (p: FakeOAuthProvider, refreshToken: string, extra: Record<string, string> = {}) => tokenCall(p, { grant_type: "refresh_token", refresh_token: refreshToken, ...extra });

async function api(p: FakeOAuthProvider, path: string, accessToken?: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (accessToken) headers.set("authorization", `Bearer ${accessToken}`);
  const res = await fetch(`${p.url}/api${path}`, { ...init, headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe("fake OAuth provider", () => {
  it("publishes RFC 8414 metadata and an OpenAPI document of its resource API", async () => {
    const p = await start();
    const meta = (await (await fetch(`${p.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: p.url,
      authorization_endpoint: p.authorizationUrl,
      token_endpoint: p.tokenUrl,
      revocation_endpoint: p.revocationUrl,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: ["profile", "items:read", "items:write"],
      authorization_response_iss_parameter_supported: true,
    });
    const doc = (await (await fetch(`${p.url}/openapi.json`)).json()) as {
      servers: { url: string }[];
      components: { securitySchemes: { oauth: { type: string; flows: { authorizationCode: Record<string, unknown> } } } };
      paths: Record<string, Record<string, { operationId: string; security: unknown }>>;
    };
    expect(doc.servers).toEqual([{ url: `${p.url}/api` }]);
    expect(doc.components.securitySchemes.oauth.type).toBe("oauth2");
    expect(doc.components.securitySchemes.oauth.flows.authorizationCode).toMatchObject({ authorizationUrl: p.authorizationUrl, tokenUrl: p.tokenUrl, refreshUrl: p.tokenUrl });
    expect(doc.paths["/me"].get).toMatchObject({ operationId: "getMe", security: [{ oauth: ["profile"] }] });
    expect(doc.paths["/items"].get).toMatchObject({ operationId: "listItems", security: [{ oauth: ["items:read"] }] });
    expect(doc.paths["/items"].post).toMatchObject({ operationId: "createItem", security: [{ oauth: ["items:write"] }] });
  });

  it("a full authorization code + PKCE flow connects the user named on the consent page", async () => {
    const p = await start();
    const { html, location, verifier } = await consent(p, { user: "bob", scope: "profile items:read items:write" });
    expect(html).toContain("<title>Fake provider — consent</title>");
    expect(html).toContain('<label for="user">Username</label>');
    expect(html).toContain('value="alice"');
    expect(html).toMatch(/<button[^>]*>Allow<\/button>/);
    expect(html).toMatch(/<button[^>]*>Deny<\/button>/);
    expect(html).toContain(p.clientId);
    expect(html).toContain("items:write");

    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get("state")).toBe("st-1");
    expect(location.searchParams.get("iss")).toBe(p.url);
    const code = location.searchParams.get("code") ?? "";
    expect(code).not.toBe("");

    const answer = await tokenCall(p, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "profile items:read items:write" });
    const { access_token: accessToken = "", refresh_token: refreshToken = "" } = answer.body;
    expect(accessToken).toMatch(/^fat_[A-Za-z0-9_-]{43}$/);
    expect(refreshToken).toMatch(/^frt_[A-Za-z0-9_-]{43}$/);
    expect(p.issuedTokens()).toEqual([accessToken, refreshToken]);

    expect((await api(p, "/me", accessToken)).body).toEqual({ user: "bob", scopes: ["profile", "items:read", "items:write"] });
    expect((await api(p, "/items?q=lamps", accessToken)).body).toEqual({ items: [{ id: 1, owner: "bob", q: "lamps" }] });
    const created = await api(p, "/items", accessToken, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "lamp" }) });
    expect(created).toMatchObject({ status: 201, body: { created: { name: "lamp", owner: "bob" } } });
    expect(p.resourceRequests).toEqual([
      { path: "/api/me", authorization: `Bearer ${accessToken}`, status: 200 },
      { path: "/api/items", authorization: `Bearer ${accessToken}`, status: 200 },
      { path: "/api/items", authorization: `Bearer ${accessToken}`, status: 201 },
    ]);
    expect(p.tokenRequests).toEqual([{ grantType: "authorization_code", status: 200, at: expect.any(Number) }]);
  });

  it("Deny sends the user back with access_denied, the state and the issuer", async () => {
    const p = await start();
    const { location } = await consent(p, { decision: "deny" });
    expect(Object.fromEntries(location.searchParams)).toEqual({ error: "access_denied", state: "st-1", iss: p.url });
  });

  it("a wrong client or unregistered redirect_uri gets an error page, never a redirect", async () => {
    const p = await start();
    const cases: Record<string, string | null>[] = [{ client_id: "someone-else" }, { redirect_uri: `${REDIRECT}/evil` }, { redirect_uri: "http://tollgate.test/connections/callback?x=1" }, { redirect_uri: null }];
    for (const overrides of cases) {
      const res = await fetch(authorizeQuery(p, overrides).url, { redirect: "manual" });
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toContain("text/html");
    }
  });

  it("other authorization errors are redirected with the state: PKCE is required and only S256", async () => {
    const p = await start();
    const cases: [Record<string, string | null>, string][] = [
      [{ code_challenge: null }, "invalid_request"],
      [{ code_challenge_method: null }, "invalid_request"],
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ scope: "profile admin" }, "invalid_scope"],
      [{ response_type: "token" }, "unsupported_response_type"],
    ];
    for (const [overrides, error] of cases) {
      const res = await fetch(authorizeQuery(p, overrides).url, { redirect: "manual" });
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location") ?? "");
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("state")).toBe("st-1");
      expect(location.searchParams.get("iss")).toBe(p.url);
    }
  });

  it("a code is single-use: the second exchange is refused and revokes what the first one bought", async () => {
    const p = await start();
    const { location, verifier } = await consent(p);
    const fields = { grant_type: "authorization_code", code: location.searchParams.get("code") ?? "", redirect_uri: REDIRECT, code_verifier: verifier };
    const first = await tokenCall(p, fields);
    expect(first.status).toBe(200);
    expect(await tokenCall(p, fields)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await api(p, "/me", first.body.access_token)).status).toBe(401);
    expect((await refresh(p, first.body.refresh_token ?? "")).body.error).toBe("invalid_grant");
  });

  it("a wrong code_verifier or redirect_uri is refused, and the failed attempt spends the code", async () => {
    const p = await start();
    const wrongVerifier = await consent(p);
    const code = wrongVerifier.location.searchParams.get("code") ?? "";
    expect(await tokenCall(p, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: crypto.randomBytes(32).toString("base64url") })).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await tokenCall(p, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: wrongVerifier.verifier })).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

    const wrongRedirect = await consent(p);
    const fields = { grant_type: "authorization_code", code: wrongRedirect.location.searchParams.get("code") ?? "", code_verifier: wrongRedirect.verifier };
    expect(await tokenCall(p, { ...fields, redirect_uri: "http://tollgate.test/other" })).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("clients authenticate by Basic (form-url-encoded values) or by the body, not both, and a wrong secret is invalid_client", async () => {
    const p = await start({ clientId: "tollgate app", clientSecret: "s+cr:t/ü" });
    const unknownGrant = { grant_type: "refresh_token", refresh_token: "frt_unknown" };
    // Past client authentication the request fails on the grant, proving the client was accepted.
    expect((await tokenCall(p, unknownGrant, "basic")).body.error).toBe("invalid_grant");
    expect((await tokenCall(p, unknownGrant, "post")).body.error).toBe("invalid_grant");

    const raw = `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString("base64")}`;
    const unencoded = await fetch(p.tokenUrl, { method: "POST", headers: { authorization: raw }, body: new URLSearchParams(unknownGrant) });
    expect(unencoded.status).toBe(401);
    expect(unencoded.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(await unencoded.json()).toMatchObject({ error: "invalid_client" });

    const wrong = await fetch(p.tokenUrl, { method: "POST", body: new URLSearchParams({ ...unknownGrant, client_id: p.clientId, client_secret: "nope" }) });
    expect(wrong.status).toBe(401);
    const both = await fetch(p.tokenUrl, {
      method: "POST",
      headers: { authorization: basic(p.clientId, p.clientSecret) },
      body: new URLSearchParams({ ...unknownGrant, client_id: p.clientId, client_secret: p.clientSecret }),
    });
    expect(both.status).toBe(400);
    expect(await both.json()).toMatchObject({ error: "invalid_request" });
    expect((await tokenCall(p, { grant_type: "password" })).body.error).toBe("unsupported_grant_type");
  });

  it("refresh rotates the refresh token; presenting the rotated one is reuse and revokes the whole grant", async () => {
    const p = await start();
    const first = await connect(p);
    const rotated = await refresh(p, first.refreshToken);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    const second = { accessToken: rotated.body.access_token ?? "", refreshToken: rotated.body.refresh_token ?? "" };
    expect(second.refreshToken).toMatch(/^frt_/);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect((await api(p, "/me", second.accessToken)).status).toBe(200);

    expect(await refresh(p, first.refreshToken)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await api(p, "/me", second.accessToken)).status).toBe(401);
    expect((await refresh(p, second.refreshToken)).body.error).toBe("invalid_grant");
    expect(p.refreshCount()).toBe(3);
    expect(p.tokenRequests.map((r) => [r.grantType, r.refreshToken, r.status])).toEqual([
      ["authorization_code", undefined, 200],
      ["refresh_token", first.refreshToken, 200],
      ["refresh_token", first.refreshToken, 400],
      ["refresh_token", second.refreshToken, 400],
    ]);
  });

  it("without rotation a refresh answers no refresh token and the old one keeps working", async () => {
    const p = await start({ rotateRefreshTokens: false, accessTokenTtlSeconds: 60 });
    const { refreshToken } = await connect(p);
    for (let i = 0; i < 2; i++) {
      const answer = await refresh(p, refreshToken);
      expect(answer.status).toBe(200);
      expect(answer.body.refresh_token).toBeUndefined();
      expect(answer.body.expires_in).toBe(60);
    }
  });

  it("a refresh may narrow the scope but never widen it", async () => {
    const p = await start();
    const { refreshToken } = await connect(p, { scope: "profile items:read" });
    const narrowed = await refresh(p, refreshToken, { scope: "items:read" });
    expect(narrowed.body.scope).toBe("items:read");
    expect((await api(p, "/me", narrowed.body.access_token)).status).toBe(403);
    expect((await refresh(p, narrowed.body.refresh_token ?? "", { scope: "items:write" })).body.error).toBe("invalid_scope");
  });

  it("after expireAccessTokens the API answers 401 invalid_token, and a refresh gets a working token", async () => {
    const p = await start();
    const tokens = await connect(p);
    p.expireAccessTokens();
    const expired = await api(p, "/me", tokens.accessToken);
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    expect(expired.body.error).toBe("invalid_token");
    const renewed = await refresh(p, tokens.refreshToken);
    expect((await api(p, "/me", renewed.body.access_token)).status).toBe(200);
    expect((await api(p, "/me")).status).toBe(401);
    expect((await api(p, "/me", "fat_unknown")).status).toBe(401);
  });

  it("revokeUser ends that user's grants only: their refresh answers invalid_grant", async () => {
    const p = await start();
    const alice = await connect(p, { user: "alice" });
    const bob = await connect(p, { user: "bob" });
    p.revokeUser("alice");
    expect((await api(p, "/me", alice.accessToken)).status).toBe(401);
    expect(await refresh(p, alice.refreshToken)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await api(p, "/me", bob.accessToken)).status).toBe(200);
    p.revokeUser();
    expect((await refresh(p, bob.refreshToken)).body.error).toBe("invalid_grant");
  });

  it("the revocation endpoint ends a refresh token's grant, answers 200 for unknown tokens and needs the client", async () => {
    const p = await start();
    const { accessToken, refreshToken } = await connect(p);
    const revoke = (token: string, authorization = basic(p.clientId, p.clientSecret)) =>
      fetch(p.revocationUrl, { method: "POST", headers: { authorization }, body: new URLSearchParams({ token, token_type_hint: "refresh_token" }) });
    expect((await revoke(refreshToken, basic(p.clientId, "wrong"))).status).toBe(401);
    expect((await api(p, "/me", accessToken)).status).toBe(200);
    expect((await revoke(refreshToken)).status).toBe(200);
    expect((await api(p, "/me", accessToken)).status).toBe(401);
    expect((await refresh(p, refreshToken)).body.error).toBe("invalid_grant");
    expect((await revoke("frt_never_issued")).status).toBe(200);
    expect(p.revocations).toEqual([refreshToken, "frt_never_issued"]);
  });

  it("a token without the operation's scope gets 403 insufficient_scope", async () => {
    const p = await start();
    const { accessToken } = await connect(p, { scope: "profile items:read" });
    const denied = await api(p, "/items", accessToken, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "lamp" }) });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe("insufficient_scope");
    expect(denied.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });

  it("20 parallel refreshes of one rotating token: one 200, the rest invalid_grant, and the reuse revokes the winner too", async () => {
    // What a refresh race costs a client that does not single-flight its refreshes: the losers look
    // like token theft, so the provider ends the grant and the user must connect again.
    const p = await start({ refreshDelayMs: 50 });
    const { refreshToken } = await connect(p);
    const startedAt = Date.now();
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(p, refreshToken)));
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(50);
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400 && a.body.error === "invalid_grant")).toHaveLength(19);
    expect(p.refreshCount()).toBe(20);
    expect((await api(p, "/me", winners[0].body.access_token)).status).toBe(401);
    expect((await refresh(p, winners[0].body.refresh_token ?? "")).body.error).toBe("invalid_grant");
  });
});

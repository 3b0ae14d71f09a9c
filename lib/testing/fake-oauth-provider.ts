import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OAuth 2.0 provider on 127.0.0.1 (port 0) playing a third-party API, like GitHub, that
 * Tollgate's users connect their accounts to: authorization code with PKCE (S256 only) behind a
 * consent page, `iss` on every authorization response (RFC 9207), refresh with rotation and reuse
 * detection (Security BCP: presenting a rotated refresh token revokes its grant), revocation
 * (RFC 7009), metadata (RFC 8414), and a small resource API described by `/openapi.json`. It shares
 * nothing with Tollgate's own authorization server (lib/oauth), so a mistake made by both cannot
 * hide. State is in memory; every token request, revocation and resource call is recorded.
 */
export interface FakeOAuthProvider {
  /** http://127.0.0.1:PORT, also the issuer. */
  url: string;
  authorizationUrl: string;
  tokenUrl: string;
  revocationUrl: string;
  clientId: string;
  clientSecret: string;
  /** Everything the token endpoint was asked, in order of arrival (grant_type, the refresh_token sent, the time, the answer status). */
  tokenRequests: { grantType: string; refreshToken?: string; status: number; at: number }[];
  /** refresh_token grants received (any outcome). */
  refreshCount(): number;
  /** Tokens an authenticated client sent to /revoke. */
  revocations: string[];
  resourceRequests: { path: string; authorization?: string; status: number }[];
  /** Every access and refresh token ever issued (tests search logs and responses for them). */
  issuedTokens(): string[];
  /** Make every access token issued so far expire now (the resource API answers 401 for them). */
  expireAccessTokens(): void;
  /** The provider revokes everything it issued to `user` (or everyone): access tokens answer 401, refresh answers invalid_grant. */
  revokeUser(user?: string): void;
  close(): Promise<void>;
}

export interface FakeOAuthProviderOptions {
  /** Exact redirect URIs registered for the client. */
  redirectUris: string[];
  /** Default 3600. */
  accessTokenTtlSeconds?: number;
  /** Default true: each refresh answers a new refresh token and spends the one presented. */
  rotateRefreshTokens?: boolean;
  /** Delay before answering a refresh (widens race windows in tests), default 0. The refresh itself happens on arrival. */
  refreshDelayMs?: number;
  clientId?: string;
  clientSecret?: string;
  /** Supported scopes, default ["profile", "items:read", "items:write"]; an authorization request without `scope` gets them all. */
  scopes?: string[];
}

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json; headers?: Record<string, string> };

/** One user's consent to the client; every token issued from it dies with it. */
interface Grant {
  user: string;
  scopes: string[];
  revoked: boolean;
}
interface AuthorizationCode {
  grant: Grant;
  redirectUri: string;
  challenge: string;
  expiresAt: number;
  redeemed: boolean;
}
interface AccessToken {
  grant: Grant;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}
interface RefreshToken {
  grant: Grant;
  rotated: boolean;
}
interface AuthorizationRequest {
  redirectUri: string;
  scopes: string[];
  state: string | null;
  challenge: string;
}

const CODE_TTL_MS = 60_000;
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  profile: "Read your username",
  "items:read": "List your items",
  "items:write": "Create items",
};

const random = () => crypto.randomBytes(32).toString("base64url");
const s256 = (verifier: string) => crypto.createHash("sha256").update(verifier).digest("base64url");
const splitScope = (scope: string | null) => (scope ?? "").split(" ").filter((s) => s !== "");
const oauthError = (status: number, error: string, description: string): Answer => ({ status, body: { error, error_description: description } });
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** RFC 6749 §2.3.1: Basic credentials are form-url-encoded before base64. */
function formDecode(s: string): string | null {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

function sendJson(res: http.ServerResponse, answer: Answer) {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...answer.headers });
  res.end(text);
}

function sendPage(res: http.ServerResponse, status: number, title: string, body: string) {
  const text = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><main>${body}</main></body></html>`;
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-frame-options": "DENY" });
  res.end(text);
}

function openApiDocument(base: string, tokenUrl: string, authorizationUrl: string, scopes: string[]): Json {
  const json = (schema: Json) => ({ "application/json": { schema } });
  const item = { type: "object", required: ["id", "owner", "q"], properties: { id: { type: "integer" }, owner: { type: "string" }, q: { type: "string" } } };
  return {
    openapi: "3.0.3",
    info: { title: "Fake provider API", version: "1.0.0" },
    servers: [{ url: `${base}/api` }],
    components: {
      securitySchemes: {
        oauth: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl,
              tokenUrl,
              refreshUrl: tokenUrl,
              scopes: Object.fromEntries(scopes.map((s) => [s, SCOPE_DESCRIPTIONS[s] ?? `The ${s} scope`])),
            },
          },
        },
      },
    },
    paths: {
      "/me": {
        get: {
          operationId: "getMe",
          summary: "The user the token was issued to",
          security: [{ oauth: ["profile"] }],
          responses: {
            "200": {
              description: "The user and the token's scopes",
              content: json({ type: "object", required: ["user", "scopes"], properties: { user: { type: "string" }, scopes: { type: "array", items: { type: "string" } } } }),
            },
          },
        },
      },
      "/items": {
        get: {
          operationId: "listItems",
          summary: "The user's items matching a query",
          security: [{ oauth: ["items:read"] }],
          parameters: [{ name: "q", in: "query", required: false, schema: { type: "string" }, description: "Search text" }],
          responses: {
            "200": { description: "Matching items", content: json({ type: "object", required: ["items"], properties: { items: { type: "array", items: item } } }) },
          },
        },
        post: {
          operationId: "createItem",
          summary: "Create an item owned by the user",
          security: [{ oauth: ["items:write"] }],
          requestBody: { required: true, content: json({ type: "object", required: ["name"], properties: { name: { type: "string" } } }) },
          responses: {
            "201": {
              description: "The created item",
              content: json({
                type: "object",
                required: ["created"],
                properties: { created: { type: "object", required: ["name", "owner"], properties: { name: { type: "string" }, owner: { type: "string" } } } },
              }),
            },
          },
        },
      },
    },
  };
}

export async function startFakeOAuthProvider(options: FakeOAuthProviderOptions): Promise<FakeOAuthProvider> {
  const clientId = options.clientId ?? `fake-client-${crypto.randomBytes(4).toString("hex")}`;
  const clientSecret = options.clientSecret ?? `fake-secret-${random()}`;
  const ttlSeconds = options.accessTokenTtlSeconds ?? 3600;
  const rotate = options.rotateRefreshTokens ?? true;
  const refreshDelayMs = options.refreshDelayMs ?? 0;
  const supported = options.scopes ?? ["profile", "items:read", "items:write"];

  const grants: Grant[] = [];
  const codes = new Map<string, AuthorizationCode>();
  const accessTokens = new Map<string, AccessToken>();
  const refreshTokens = new Map<string, RefreshToken>();
  const issued: string[] = [];
  const tokenRequests: FakeOAuthProvider["tokenRequests"] = [];
  const revocations: string[] = [];
  const resourceRequests: FakeOAuthProvider["resourceRequests"] = [];
  let base = "";

  /** Client and redirect URI are checked first: until both are trusted, errors may not be redirected (RFC 6749 §4.1.2.1). */
  function checkAuthorization(q: URLSearchParams): { page: string } | { redirect: string; error: string; description: string; state: string | null } | AuthorizationRequest {
    if (q.get("client_id") !== clientId) return { page: "Unknown client_id." };
    const redirectUri = q.get("redirect_uri") ?? "";
    if (!options.redirectUris.includes(redirectUri)) return { page: "redirect_uri is not registered for this client." };
    const state = q.get("state");
    const fail = (error: string, description: string) => ({ redirect: redirectUri, error, description, state });
    const responseType = q.get("response_type");
    if (!responseType) return fail("invalid_request", "response_type is required");
    if (responseType !== "code") return fail("unsupported_response_type", "only response_type=code is supported");
    const scopes = q.get("scope") ? splitScope(q.get("scope")) : supported;
    const unknown = scopes.find((s) => !supported.includes(s));
    if (unknown) return fail("invalid_scope", `unknown scope ${unknown}`);
    const challenge = q.get("code_challenge") ?? "";
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail("invalid_request", "a PKCE code_challenge (S256) is required");
    // An absent method means plain (RFC 7636 §4.3), which is refused like an explicit one.
    if (q.get("code_challenge_method") !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
    return { redirectUri, scopes: [...new Set(scopes)], state, challenge };
  }

  function redirectTo(res: http.ServerResponse, redirectUri: string, params: Record<string, string | null>) {
    const target = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== null) target.searchParams.set(name, value);
    target.searchParams.set("iss", base);
    res.writeHead(302, { location: target.href, "cache-control": "no-store" });
    res.end();
  }

  function authorize(method: string, q: URLSearchParams, res: http.ServerResponse) {
    const checked = checkAuthorization(q);
    if ("page" in checked) return sendPage(res, 400, "Fake provider — error", `<h1>Authorization error</h1><p>${esc(checked.page)}</p>`);
    if ("redirect" in checked) return redirectTo(res, checked.redirect, { error: checked.error, error_description: checked.description, state: checked.state });
    if (method === "POST") {
      if (q.get("decision") !== "allow") return redirectTo(res, checked.redirectUri, { error: "access_denied", state: checked.state });
      const grant: Grant = { user: q.get("user")?.trim() || "alice", scopes: checked.scopes, revoked: false };
      grants.push(grant);
      const code = random();
      codes.set(code, { grant, redirectUri: checked.redirectUri, challenge: checked.challenge, expiresAt: Date.now() + CODE_TTL_MS, redeemed: false });
      return redirectTo(res, checked.redirectUri, { code, state: checked.state });
    }
    const hidden = { response_type: "code", client_id: clientId, redirect_uri: checked.redirectUri, scope: checked.scopes.join(" "), state: checked.state, code_challenge: checked.challenge, code_challenge_method: "S256" };
    const fields = Object.entries(hidden)
      .filter(([, value]) => value !== null)
      .map(([name, value]) => `<input type="hidden" name="${name}" value="${esc(value ?? "")}">`)
      .join("");
    const scopeList = checked.scopes.map((s) => `<li><code>${esc(s)}</code> — ${esc(SCOPE_DESCRIPTIONS[s] ?? s)}</li>`).join("");
    sendPage(
      res,
      200,
      "Fake provider — consent",
      `<h1>Authorize ${esc(clientId)}</h1><p><strong>${esc(clientId)}</strong> asks to access your account:</p><ul>${scopeList}</ul>` +
        `<form method="post" action="/authorize">${fields}<p><label for="user">Username</label> <input id="user" name="user" type="text" value="alice" required></p>` +
        `<button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny">Deny</button></form>`,
    );
  }

  /** client_secret_basic or client_secret_post, never both (RFC 6749 §2.3). */
  function authenticateClient(authorization: string | undefined, params: URLSearchParams): Answer | null {
    const invalid: Answer = { ...oauthError(401, "invalid_client", "client authentication failed"), headers: { "www-authenticate": 'Basic realm="fake-provider"' } };
    const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? "");
    if (basic && params.has("client_secret")) return oauthError(400, "invalid_request", "more than one client authentication method");
    if (!basic) return params.get("client_id") === clientId && params.get("client_secret") === clientSecret ? null : invalid;
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return invalid;
    const id = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    if (id !== clientId || secret !== clientSecret) return invalid;
    return params.has("client_id") && params.get("client_id") !== id ? invalid : null;
  }

  function issue(grant: Grant, scopes: string[], withRefresh: boolean): Answer {
    const accessToken = `fat_${random()}`;
    accessTokens.set(accessToken, { grant, scopes, expiresAt: Date.now() + ttlSeconds * 1000, revoked: false });
    issued.push(accessToken);
    const body: Json = { access_token: accessToken, token_type: "Bearer", expires_in: ttlSeconds, scope: scopes.join(" ") };
    if (withRefresh) {
      const refreshToken = `frt_${random()}`;
      refreshTokens.set(refreshToken, { grant, rotated: false });
      issued.push(refreshToken);
      body.refresh_token = refreshToken;
    }
    return { status: 200, body };
  }

  function exchangeCode(params: URLSearchParams): Answer {
    const code = codes.get(params.get("code") ?? "");
    if (!code) return oauthError(400, "invalid_grant", "unknown authorization code");
    if (code.redeemed) {
      // RFC 6749 §4.1.2: a code used twice was probably stolen; what it bought is revoked.
      code.grant.revoked = true;
      return oauthError(400, "invalid_grant", "authorization code already used; its tokens are revoked");
    }
    // Spent by its first redemption, even a failed one: a verifier cannot be guessed on retries.
    code.redeemed = true;
    if (Date.now() >= code.expiresAt) return oauthError(400, "invalid_grant", "authorization code expired");
    if (params.get("redirect_uri") !== code.redirectUri) return oauthError(400, "invalid_grant", "redirect_uri differs from the authorization request's");
    const verifier = params.get("code_verifier") ?? "";
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || s256(verifier) !== code.challenge) return oauthError(400, "invalid_grant", "code_verifier does not match the code_challenge");
    return issue(code.grant, code.grant.scopes, true);
  }

  function refresh(params: URLSearchParams): Answer {
    const presented = refreshTokens.get(params.get("refresh_token") ?? "");
    if (!presented || presented.grant.revoked) return oauthError(400, "invalid_grant", "refresh token is unknown or revoked");
    if (presented.rotated) {
      // Security BCP §4.14.2: a rotated token coming back means two parties hold it; end the grant.
      presented.grant.revoked = true;
      return oauthError(400, "invalid_grant", "refresh token was already used; the grant is revoked");
    }
    const requested = params.get("scope") ? splitScope(params.get("scope")) : presented.grant.scopes;
    const extra = requested.find((s) => !presented.grant.scopes.includes(s));
    if (extra) return oauthError(400, "invalid_scope", `scope ${extra} was not granted`);
    if (rotate) presented.rotated = true;
    return issue(presented.grant, [...new Set(requested)], rotate);
  }

  function token(params: URLSearchParams, authorization: string | undefined): Answer {
    const failed = authenticateClient(authorization, params);
    if (failed) return failed;
    switch (params.get("grant_type")) {
      case "authorization_code":
        return exchangeCode(params);
      case "refresh_token":
        return refresh(params);
      case null:
      case "":
        return oauthError(400, "invalid_request", "grant_type is required");
      default:
        return oauthError(400, "unsupported_grant_type", `grant_type ${params.get("grant_type")} is not supported`);
    }
  }

  function revoke(params: URLSearchParams, authorization: string | undefined): Answer {
    const failed = authenticateClient(authorization, params);
    if (failed) return failed;
    const value = params.get("token");
    if (!value) return oauthError(400, "invalid_request", "token is required");
    revocations.push(value);
    // The hint is only an optimisation (RFC 7009 §2.1): both kinds are looked up either way.
    const refreshToken = refreshTokens.get(value);
    if (refreshToken) refreshToken.grant.revoked = true;
    const accessToken = accessTokens.get(value);
    if (accessToken) accessToken.revoked = true;
    return { status: 200, body: {} };
  }

  function resource(method: string, path: string, query: URLSearchParams, authorization: string | undefined, bodyText: string): Answer {
    const required = path === "/api/me" && method === "GET" ? "profile" : path === "/api/items" ? (method === "GET" ? "items:read" : method === "POST" ? "items:write" : null) : null;
    if (!required) return { status: 404, body: { error: "not_found", error_description: `no route ${method} ${path}` } };
    const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    const access = presented === undefined ? undefined : accessTokens.get(presented);
    if (!access || access.revoked || access.grant.revoked || Date.now() >= access.expiresAt) {
      return { status: 401, body: { error: "invalid_token", error_description: "the access token is missing, unknown, expired or revoked" }, headers: { "www-authenticate": 'Bearer error="invalid_token"' } };
    }
    if (!access.scopes.includes(required)) {
      return { status: 403, body: { error: "insufficient_scope", error_description: `requires the ${required} scope` }, headers: { "www-authenticate": `Bearer error="insufficient_scope", scope="${required}"` } };
    }
    const owner = access.grant.user;
    if (path === "/api/me") return { status: 200, body: { user: owner, scopes: access.scopes } };
    if (method === "GET") return { status: 200, body: { items: [{ id: 1, owner, q: query.get("q") ?? "" }] } };
    let item: unknown;
    try {
      item = JSON.parse(bodyText);
    } catch {
      item = null;
    }
    if (item === null || typeof item !== "object" || Array.isArray(item) || typeof (item as Json).name !== "string") {
      return { status: 400, body: { error: "invalid_request", error_description: "the body must be a JSON object with a string name" } };
    }
    return { status: 201, body: { created: { ...item, owner } } };
  }

  function handle(req: http.IncomingMessage, bodyText: string, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", base);
    const method = req.method ?? "GET";
    const isForm = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase() === "application/x-www-form-urlencoded";
    const form = new URLSearchParams(isForm ? bodyText : "");
    const authorization = req.headers.authorization;
    const noStore = { "cache-control": "no-store", pragma: "no-cache" };

    if (url.pathname === "/.well-known/oauth-authorization-server" && method === "GET") {
      return sendJson(res, {
        status: 200,
        body: {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          revocation_endpoint: `${base}/revoke`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
          revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
          scopes_supported: supported,
          authorization_response_iss_parameter_supported: true,
        },
      });
    }
    if (url.pathname === "/openapi.json" && method === "GET") return sendJson(res, { status: 200, body: openApiDocument(base, `${base}/token`, `${base}/authorize`, supported) });
    if (url.pathname === "/authorize" && (method === "GET" || method === "POST")) return authorize(method, method === "GET" ? url.searchParams : form, res);
    if (url.pathname === "/token" && method === "POST") {
      const grantType = form.get("grant_type") ?? "";
      const refreshToken = form.get("refresh_token") ?? undefined;
      const answer = isForm ? token(form, authorization) : oauthError(400, "invalid_request", "the body must be application/x-www-form-urlencoded");
      tokenRequests.push({ grantType, ...(refreshToken === undefined ? {} : { refreshToken }), status: answer.status, at: Date.now() });
      const reply = () => {
        if (!res.destroyed) sendJson(res, { ...answer, headers: { ...noStore, ...answer.headers } });
      };
      if (grantType === "refresh_token" && refreshDelayMs > 0) return void setTimeout(reply, refreshDelayMs).unref();
      return reply();
    }
    if (url.pathname === "/revoke" && method === "POST") {
      return sendJson(res, isForm ? revoke(form, authorization) : oauthError(400, "invalid_request", "the body must be application/x-www-form-urlencoded"));
    }
    if (url.pathname.startsWith("/api/")) {
      const answer = resource(method, url.pathname, url.searchParams, authorization, bodyText);
      resourceRequests.push({ path: url.pathname, ...(authorization === undefined ? {} : { authorization }), status: answer.status });
      return sendJson(res, answer);
    }
    sendJson(res, { status: 404, body: { error: "not_found", error_description: `no route ${method} ${url.pathname}` } });
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    authorizationUrl: `${base}/authorize`,
    tokenUrl: `${base}/token`,
    revocationUrl: `${base}/revoke`,
    clientId,
    clientSecret,
    tokenRequests,
    refreshCount: () => tokenRequests.filter((r) => r.grantType === "refresh_token").length,
    revocations,
    resourceRequests,
    issuedTokens: () => [...issued],
    expireAccessTokens: () => {
      const now = Date.now();
      for (const access of accessTokens.values()) access.expiresAt = Math.min(access.expiresAt, now);
    },
    revokeUser: (user) => {
      for (const grant of grants) if (user === undefined || grant.user === user) grant.revoked = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import crypto from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import { oauthAuthorizationCodes, oauthClients } from "../db/schema";
import type { Db } from "../db/types";
import { randomToken, sha256Hex } from "../auth/secrets";
import { apiAudience, issuer } from "../auth/issuer";
import { assertGrantAllowed, type OAuthClient } from "./client-auth";
import { grantTypeNames } from "./create-client";
import { OAuthError, oauthError, wireErrorCode } from "./errors";
import { resolveResource } from "./resources";
import { formatScope, parseScope } from "./scopes";
import { issueUserTokens, revokeAccessToken, revokeRefreshFamily, type IssuedUserTokens } from "./tokens";

/** RFC 6749 section 4.1.2 recommends at most 10 minutes; a code is exchanged within seconds. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

/** The query parameters of `GET /oauth/authorize` (all optional here: validation says what is missing). */
export interface AuthorizationRequestParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  resource?: string;
}

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  scope: string;
  state?: string;
  codeChallenge: string;
  resource: string;
}

/**
 * The outcome of checking an authorization request (RFC 6749 section 4.1.2.1): errors about the
 * client or its redirect URI must not redirect (the URI cannot be trusted); every later error is
 * sent back to the client at its redirect URI.
 */
export type AuthorizationRequestCheck =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; redirectTo: string }
  | { ok: false; error: OAuthError };

// RFC 7636 section 4.2: BASE64URL(SHA256(verifier)) is always 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The client's redirect URI with the authorization response parameters (and `iss`, RFC 9207). */
export function authorizationResponseUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set("iss", issuer());
  return url.toString();
}

export async function validateAuthorizationRequest(db: Db, params: AuthorizationRequestParams): Promise<AuthorizationRequestCheck> {
  if (!params.client_id) return { ok: false, error: oauthError("invalid_request", "client_id is required") };
  const client = (await db.select().from(oauthClients).where(eq(oauthClients.id, params.client_id)).limit(1))[0];
  if (!client) return { ok: false, error: oauthError("invalid_request", `Unknown client_id ${params.client_id}`) };
  if (!params.redirect_uri) return { ok: false, error: oauthError("invalid_request", "redirect_uri is required") };
  // Exact string comparison with a registered URI (RFC 9700 section 4.1.3): no prefix or pattern matching.
  if (!client.redirectUris.includes(params.redirect_uri)) {
    return { ok: false, error: oauthError("invalid_request", "redirect_uri is not registered for this client") };
  }

  const redirectUri = params.redirect_uri;
  const fail = (error: string, description: string): AuthorizationRequestCheck => ({
    ok: false,
    redirectTo: authorizationResponseUrl(redirectUri, { error, error_description: description, state: params.state }),
  });
  if (!client.grantTypes.includes(grantTypeNames.authorization_code)) {
    return fail("unauthorized_client", "This client is not registered for the authorization_code grant");
  }
  if (!params.response_type) return fail("invalid_request", "response_type is required");
  if (params.response_type !== "code") return fail("unsupported_response_type", "Only response_type=code is supported");
  if (!params.code_challenge) return fail("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256");
  if (params.code_challenge_method !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
  if (!S256_CHALLENGE.test(params.code_challenge)) return fail("invalid_request", "code_challenge must be a 43-character base64url SHA-256 digest");
  if (!params.scope) return fail("invalid_request", "scope is required");
  try {
    const scope = formatScope(parseScope(params.scope));
    const resource = await resolveResource(db, client, params.resource);
    return { ok: true, request: { client, redirectUri, scope, state: params.state, codeChallenge: params.code_challenge, resource } };
  } catch (err) {
    if (err instanceof OAuthError) return fail(wireErrorCode(err.code), err.message);
    throw err;
  }
}

/** The user approved: a single-use code bound to client, redirect URI, PKCE challenge and user. */
export async function approveAuthorizationRequest(db: Db, input: { request: AuthorizationRequest; userId: string; accountId: string }): Promise<string> {
  const code = randomToken(32);
  const { request } = input;
  await db.insert(oauthAuthorizationCodes).values({
    codeHash: sha256Hex(code),
    clientId: request.client.id,
    userId: input.userId,
    accountId: input.accountId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scope: request.scope,
    resource: request.resource,
    expiresAt: new Date(Date.now() + AUTHORIZATION_CODE_TTL_SECONDS * 1000),
  });
  return authorizationResponseUrl(request.redirectUri, { code, state: request.state });
}

export function denyAuthorizationRequest(request: AuthorizationRequest): string {
  return authorizationResponseUrl(request.redirectUri, { error: "access_denied", error_description: "The user denied the request", state: request.state });
}

function s256(verifier: string): string {
  return crypto.createHash("sha256").update(verifier).digest("base64url");
}

function sameString(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}

/**
 * The authorization code grant (RFC 6749 section 4.1.3, RFC 7636 section 4.6). Its client
 * consumes the code before anything else is checked, so it is single use whatever the outcome;
 * presenting a used code again revokes the tokens issued with it (section 4.1.2).
 */
export async function exchangeAuthorizationCode(
  db: Db,
  input: { client: OAuthClient; code: string; redirectUri: string; codeVerifier: string },
): Promise<IssuedUserTokens> {
  assertGrantAllowed(input.client, grantTypeNames.authorization_code);
  const codeHash = sha256Hex(input.code);
  const consumed = await db
    .update(oauthAuthorizationCodes)
    .set({ usedAt: new Date() })
    .where(
      and(eq(oauthAuthorizationCodes.codeHash, codeHash), eq(oauthAuthorizationCodes.clientId, input.client.id), isNull(oauthAuthorizationCodes.usedAt)),
    )
    .returning();
  const row = consumed[0];
  if (!row) {
    const used = (await db.select().from(oauthAuthorizationCodes).where(eq(oauthAuthorizationCodes.codeHash, codeHash)).limit(1))[0];
    // Another client presenting the code neither consumes it nor learns whether it exists.
    if (!used || used.clientId !== input.client.id) throw oauthError("invalid_grant", "Unknown authorization code, or it was issued to another client");
    if (used.refreshFamilyId) await revokeRefreshFamily(db, used.refreshFamilyId);
    if (used.accessTokenJti && used.accessExpiresAt) await revokeAccessToken(db, used.accessTokenJti, used.accessExpiresAt);
    throw oauthError("invalid_grant", "The authorization code was already used; tokens issued with it have been revoked");
  }
  if (row.expiresAt.getTime() <= Date.now()) throw oauthError("invalid_grant", "The authorization code has expired");
  if (row.redirectUri !== input.redirectUri) throw oauthError("invalid_grant", "redirect_uri does not match the authorization request");
  if (!sameString(s256(input.codeVerifier), row.codeChallenge)) throw oauthError("invalid_grant", "code_verifier does not match the code_challenge");

  const issued = await issueUserTokens(db, {
    userId: row.userId,
    accountId: row.accountId,
    client: input.client,
    scope: row.scope,
    resource: row.resource ?? apiAudience(),
  });
  await db
    .update(oauthAuthorizationCodes)
    .set({ accessTokenJti: issued.accessJti, accessExpiresAt: issued.accessExpiresAt, refreshFamilyId: issued.familyId })
    .where(eq(oauthAuthorizationCodes.codeHash, codeHash));
  return issued;
}

/** The dashboard consent page's path for an authorization request: its parameters, checked again there. */
export function consentPagePath(params: AuthorizationRequestParams): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (typeof value === "string") query.set(name, value);
  return `/oauth/consent?${query.toString()}`;
}

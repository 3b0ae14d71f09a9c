import { and, eq, isNull, sql } from "drizzle-orm";
import { oauthRefreshTokens, revokedTokens } from "../db/schema";
import type { Db } from "../db/types";
import { getMembership } from "../accounts/members";
import { issueAccessToken } from "../auth/jwt";
import { randomToken, sha256Hex } from "../auth/secrets";
import { DomainError } from "../errors";
import { grantTypeNames } from "./create-client";
import { oauthError } from "./errors";
import type { OAuthClient } from "./client-auth";

/** Access tokens from the code, device and refresh grants: short, refreshed with rotation. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
/** Each refresh token lives this long unless used (then it is rotated) or revoked. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

const REFRESH_TOKEN_PREFIX = "tgr_";

export interface AccessTokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

export interface IssuedUserTokens {
  response: AccessTokenResponse;
  accessJti: string;
  accessExpiresAt: Date;
  familyId: string | null;
}

export function looksLikeRefreshToken(token: string): boolean {
  return token.startsWith(REFRESH_TOKEN_PREFIX);
}

/**
 * Issues an access token (and, for clients registered for the refresh grant, a refresh token in
 * `familyId`, a new family when absent) for a user who granted `scope`. The user is read again: a
 * deleted user, or one who moved to another account, gets nothing.
 */
export async function issueUserTokens(
  db: Db,
  input: { userId: string; accountId: string; client: OAuthClient; scope: string; refreshScope?: string; resource: string; familyId?: string },
): Promise<IssuedUserTokens> {
  let user: Awaited<ReturnType<typeof getMembership>>;
  try {
    user = await getMembership(db, input.userId, input.accountId);
  } catch (err) {
    if (err instanceof DomainError && err.code === "not_found") throw oauthError("invalid_grant", "The user of this grant no longer belongs to its account");
    throw err;
  }

  const access = await issueAccessToken(db, {
    userId: user.userId,
    accountId: user.accountId,
    role: user.role,
    scope: input.scope,
    ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    audience: input.resource,
    clientId: input.client.id,
  });
  const response: AccessTokenResponse = { access_token: access.accessToken, token_type: "Bearer", expires_in: access.expiresIn, scope: input.scope };
  let familyId: string | null = null;
  if (input.client.grantTypes.includes(grantTypeNames.refresh_token)) {
    familyId = input.familyId ?? randomToken(16);
    const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomToken(32)}`;
    await db.insert(oauthRefreshTokens).values({
      tokenHash: sha256Hex(refreshToken),
      familyId,
      clientId: input.client.id,
      userId: user.userId,
      accountId: user.accountId,
      scope: input.refreshScope ?? input.scope,
      resource: input.resource,
      expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000),
      accessTokenJti: access.jti,
      accessExpiresAt: access.expiresAt,
    });
    response.refresh_token = refreshToken;
  }
  return { response, accessJti: access.jti, accessExpiresAt: access.expiresAt, familyId };
}

/** Puts an access token's `jti` on the revocation list until it would have expired anyway. */
export async function revokeAccessToken(db: Db, jti: string, expiresAt: Date): Promise<void> {
  if (expiresAt.getTime() <= Date.now()) return;
  await db.insert(revokedTokens).values({ jti, expiresAt }).onConflictDoNothing();
}

/**
 * Revokes every refresh token of a family and every access token issued with one of them, in
 * one statement (RFC 9700 section 4.14: reuse of a rotated refresh token ends the whole grant).
 */
export async function revokeRefreshFamily(db: Db, familyId: string): Promise<void> {
  await db.execute(sql`
    WITH fam AS (
      UPDATE oauth_refresh_tokens SET revoked_at = coalesce(revoked_at, now())
       WHERE family_id = ${familyId}
       RETURNING access_token_jti, access_expires_at)
    INSERT INTO revoked_tokens (jti, expires_at)
    SELECT access_token_jti, access_expires_at FROM fam
     WHERE access_token_jti IS NOT NULL AND access_expires_at > now()
    ON CONFLICT (jti) DO NOTHING`);
}

export async function findRefreshToken(db: Db, token: string) {
  return (await db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.tokenHash, sha256Hex(token))).limit(1))[0];
}

/** Marks a refresh token used; false when it already was (or was revoked): a reuse. */
export async function markRefreshTokenRotated(db: Db, tokenHash: string): Promise<boolean> {
  const updated = await db
    .update(oauthRefreshTokens)
    .set({ rotatedAt: new Date() })
    .where(and(eq(oauthRefreshTokens.tokenHash, tokenHash), isNull(oauthRefreshTokens.rotatedAt), isNull(oauthRefreshTokens.revokedAt)))
    .returning({ tokenHash: oauthRefreshTokens.tokenHash });
  return updated.length === 1;
}

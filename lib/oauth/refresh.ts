import type { Db } from "../db/types";
import { apiAudience } from "../auth/issuer";
import { assertGrantAllowed, type OAuthClient } from "./client-auth";
import { grantTypeNames } from "./create-client";
import { oauthError } from "./errors";
import { formatScope, missingScopes, parseScope } from "./scopes";
import { findRefreshToken, issueUserTokens, markRefreshTokenRotated, revokeRefreshFamily, type IssuedUserTokens } from "./tokens";

/**
 * The refresh grant with rotation (RFC 9700 section 4.14.2): every use returns a new refresh
 * token of the same family and retires the old one. Presenting a retired token again means two
 * parties hold it: the whole family, and the access tokens issued with it, are revoked.
 */
export async function refreshTokens(db: Db, input: { client: OAuthClient; refreshToken: string; scope?: string }): Promise<IssuedUserTokens> {
  assertGrantAllowed(input.client, grantTypeNames.refresh_token);
  const row = await findRefreshToken(db, input.refreshToken);
  if (!row || row.clientId !== input.client.id) throw oauthError("invalid_grant", "Unknown refresh token, or it was issued to another client");
  if (row.revokedAt) throw oauthError("invalid_grant", "The refresh token has been revoked");
  if (row.rotatedAt) {
    await revokeRefreshFamily(db, row.familyId);
    throw oauthError("invalid_grant", "The refresh token was already used: every token of this grant has been revoked");
  }
  if (row.expiresAt.getTime() <= Date.now()) throw oauthError("invalid_grant", "The refresh token has expired");

  // RFC 6749 section 6: a narrower scope may be asked for; the grant itself keeps its scope.
  let scope = row.scope;
  if (input.scope !== undefined) {
    const requested = parseScope(input.scope);
    const missing = missingScopes(requested, row.scope);
    if (missing.length > 0) throw oauthError("invalid_scope", `The grant does not include ${missing.join(" ")}`);
    scope = formatScope(requested);
  }

  if (!(await markRefreshTokenRotated(db, row.tokenHash))) {
    // Another request rotated it between our read and our write: the same reuse, seen late.
    await revokeRefreshFamily(db, row.familyId);
    throw oauthError("invalid_grant", "The refresh token was already used: every token of this grant has been revoked");
  }
  return issueUserTokens(db, {
    userId: row.userId,
    accountId: row.accountId,
    client: input.client,
    scope,
    refreshScope: row.scope,
    resource: row.resource ?? apiAudience(),
    familyId: row.familyId,
  });
}

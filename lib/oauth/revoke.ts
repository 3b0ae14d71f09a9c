import { decodeJwt, errors as joseErrors } from "jose";
import type { Db } from "../db/types";
import { looksLikeJwt, verifyAccessToken, type AccessClaims } from "../auth/jwt";
import { DomainError } from "../errors";
import type { OAuthClient } from "./client-auth";
import { oauthError } from "./errors";
import { findRefreshToken, revokeAccessToken, revokeRefreshFamily } from "./tokens";

/**
 * RFC 7009 revocation. Unknown, invalid and expired tokens are not an error (there is nothing
 * left to revoke). A refresh token takes its whole family and the access tokens issued with it;
 * an access (or delegation) token goes on the revocation list that every verification consults.
 * A client may revoke only tokens issued to it.
 */
export async function revokeToken(db: Db, input: { client: OAuthClient; token: string }): Promise<void> {
  if (looksLikeJwt(input.token)) {
    let claims: AccessClaims;
    try {
      const aud = decodeJwt(input.token).aud;
      claims = await verifyAccessToken(db, input.token, Array.isArray(aud) ? aud[0] : aud);
    } catch (err) {
      if (err instanceof DomainError && err.code === "unauthorized") return;
      if (err instanceof joseErrors.JOSEError) return;
      throw err;
    }
    if (claims.client_id !== input.client.id) throw oauthError("client_forbidden", "This token was not issued to this client");
    await revokeAccessToken(db, claims.jti, new Date(claims.exp * 1000));
    return;
  }
  const row = await findRefreshToken(db, input.token);
  if (!row) return;
  if (row.clientId !== input.client.id) throw oauthError("client_forbidden", "This token was not issued to this client");
  await revokeRefreshFamily(db, row.familyId);
}

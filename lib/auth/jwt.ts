import { SignJWT, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import { eq, inArray, sql } from "drizzle-orm";
import { accounts, revokedTokens } from "../db/schema";
import { ACCOUNT_DISABLED } from "./auth-change";
import type { Db } from "../db/types";
import { forbidden, unauthorized } from "../errors";
import { JWT_ALG, currentSigningKey, verificationKey } from "./signing-keys";
import { apiAudience, issuer } from "./issuer";
import { randomToken } from "./secrets";
import type { UserRole } from "../vocab/roles";
import { ALL_SCOPES, formatScope } from "../oauth/scopes";

export type TokenUse = "access" | "delegation";

export interface AccessClaims extends JWTPayload {
  sub: string;
  acct: string;
  role: UserRole;
  scope: string;
  jti: string;
  exp: number;
  token_use: TokenUse;
  client_id?: string;
  /** Delegation tokens (RFC 8693 exchange) only. */
  model?: string;
  run_id?: string;
  max_credits?: number;
  tool_ids?: string[];
  provider_ids?: string[];
  /**
   * Delegation tokens only: the `jti` of the access token they were exchanged from, so revoking
   * that token (or its refresh-token family, which revokes it) revokes them too.
   */
  parent_jti?: string;
  /**
   * Not a claim: set by `verifyAccessToken` when the account requires two-factor sign-in and the
   * user has not set it up (only the enrolment operations admit such a token).
   */
  twoFactorMissing?: boolean;
}

export interface IssueTokenInput {
  userId: string;
  accountId: string;
  role: UserRole;
  scope: string;
  ttlSeconds: number;
  audience?: string | string[];
  clientId?: string;
  tokenUse?: TokenUse;
  extra?: Pick<AccessClaims, "model" | "run_id" | "max_credits" | "tool_ids" | "provider_ids" | "parent_jti">;
}

export interface IssuedToken {
  accessToken: string;
  jti: string;
  expiresIn: number;
  expiresAt: Date;
}

/** Every scope: the scope of operator-issued (`tokens issue`) and dashboard tokens, whose role still limits them. */
export const DEFAULT_SCOPE = formatScope(ALL_SCOPES);

export async function issueAccessToken(db: Db, input: IssueTokenInput): Promise<IssuedToken> {
  const { kid, key } = await currentSigningKey(db);
  const jti = randomToken(16);
  const now = Math.floor(Date.now() / 1000);
  const accessToken = await new SignJWT({
    acct: input.accountId,
    role: input.role,
    scope: input.scope,
    token_use: input.tokenUse ?? "access",
    ...(input.clientId ? { client_id: input.clientId } : {}),
    ...input.extra,
  })
    .setProtectedHeader({ alg: JWT_ALG, kid, typ: "at+jwt" })
    .setIssuer(issuer())
    .setSubject(input.userId)
    .setAudience(input.audience ?? apiAudience())
    .setIssuedAt(now)
    .setExpirationTime(now + input.ttlSeconds)
    .setJti(jti)
    .sign(key);
  return { accessToken, jti, expiresIn: input.ttlSeconds, expiresAt: new Date((now + input.ttlSeconds) * 1000) };
}

export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
}

/**
 * Verifies signature, issuer, audience, expiry and revocation (of the token, and of a delegation
 * token's parent, in one query). Every failure is `unauthorized` with a message that says which
 * (expired, malformed, unknown key, revoked).
 */
export async function verifyAccessToken(db: Db, token: string, audience: string = apiAudience()): Promise<AccessClaims> {
  if (!looksLikeJwt(token)) throw unauthorized("Malformed access token");
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw unauthorized("Malformed access token");
  }
  const key = kid ? await verificationKey(db, kid) : undefined;
  if (!key) throw unauthorized("Access token was not issued by this server");
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, { issuer: issuer(), audience, algorithms: [JWT_ALG] }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw unauthorized("Access token has expired");
    throw unauthorized("Invalid access token");
  }
  const claims = payload as AccessClaims;
  if (!claims.sub || !claims.acct || !claims.jti) throw unauthorized("Invalid access token");
  // A revoked parent stays listed until its own expiry, which a delegation token never outlives.
  // The account's state in the same round trip: a disabled account's tokens are refused at once.
  const jtis = claims.parent_jti ? [claims.jti, claims.parent_jti] : [claims.jti];
  const [state] = await db
    .select({
      revoked: sql<string | null>`(${db.select({ jti: revokedTokens.jti }).from(revokedTokens).where(inArray(revokedTokens.jti, jtis)).limit(1)})`,
      disabled: sql<boolean>`${accounts.disabledAt} is not null`,
      // The user's role in the account now: a removed member's tokens stop at once, a changed role applies at once.
      memberRole: sql<UserRole | null>`(SELECT m.role FROM account_members m WHERE m.account_id = ${claims.acct} AND m.user_id = ${claims.sub})`,
      twoFactorMissing: sql<boolean>`(${accounts.requireTwoFactorAt} IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM user_totp t WHERE t.user_id = ${claims.sub} AND t.confirmed_at IS NOT NULL))`,
    })
    .from(accounts)
    .where(eq(accounts.id, claims.acct));
  if (!state) throw unauthorized("Invalid access token");
  if (state.memberRole === null) throw unauthorized("The user of this token is no longer a member of the account");
  claims.role = state.memberRole;
  if (state.twoFactorMissing) claims.twoFactorMissing = true;
  if (state.revoked) {
    throw unauthorized(state.revoked === claims.jti ? "Access token has been revoked" : "The access token this delegation token was exchanged from has been revoked");
  }
  if (state.disabled) throw forbidden(ACCOUNT_DISABLED);
  return claims;
}

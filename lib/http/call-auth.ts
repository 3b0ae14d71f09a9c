import type { MiddlewareHandler } from "hono";
import type { Db } from "../db/types";
import { authenticateApiKey, looksLikeApiKey } from "../auth/api-keys";
import { looksLikeJwt, verifyAccessToken } from "../auth/jwt";
import { forbidden, unauthorized } from "../errors";
import { CALL_SCOPE, missingScopes } from "../oauth/scopes";
import type { ApiEnv, AuthContext } from "./context";
import { clientIp, consumeRateLimit } from "./rate-limit";

/**
 * Call's credentials: an API key, or an agent's delegation token (RFC 8693 exchange) whose
 * audience is this API and whose scope includes `tools:execute`. A user's ordinary access token is
 * not a Call credential: agents spend on a user's behalf only through a bounded delegation.
 * Revoked and expired delegation tokens fail here like any JWT.
 */
export function requireCallAuth(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    let auth: AuthContext;
    try {
      auth = await authenticateCall(c.env.db, c.req.header("authorization"));
    } catch (err) {
      await consumeRateLimit(c, "execute", `ip:${clientIp(c)}`);
      throw err;
    }
    await consumeRateLimit(c, "execute", `acct:${auth.accountId}`);
    c.set("auth", auth);
    c.env.accountId = auth.accountId;
    await next();
  };
}

async function authenticateCall(db: Db, header: string | undefined): Promise<AuthContext> {
  if (!header) throw unauthorized("Missing Authorization header");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized("Malformed Authorization header: expected `Bearer <credential>`");
  const token = match[1];
  if (looksLikeApiKey(token)) {
    const p = await authenticateApiKey(db, token);
    return { kind: "api_key", accountId: p.accountId, apiKeyId: p.apiKeyId };
  }
  if (looksLikeJwt(token)) {
    const claims = await verifyAccessToken(db, token);
    if (claims.token_use !== "delegation") {
      throw unauthorized("A user access token is not a Call credential: use an API key, or a delegation token from the token exchange grant");
    }
    if (missingScopes([CALL_SCOPE], claims.scope).length > 0) throw forbidden(`This delegation token lacks the ${CALL_SCOPE} scope`);
    return { kind: "delegation", accountId: claims.acct, userId: claims.sub, claims };
  }
  throw unauthorized("Malformed API key");
}

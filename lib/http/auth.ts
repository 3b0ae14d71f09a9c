import type { MiddlewareHandler } from "hono";
import type { Db } from "../db/types";
import { authenticateApiKey, looksLikeApiKey } from "../auth/api-keys";
import { looksLikeJwt, verifyAccessToken } from "../auth/jwt";
import { unauthorized } from "../errors";
import type { ApiEnv } from "./context";
import type { AuthContext } from "../auth/auth-context";
import { clientIp, consumeRateLimit, type RateLimitedAction } from "./rate-limit";

type Scheme = "api_key" | "jwt" | "api_key_or_jwt";

/** The credential of an `Authorization: Bearer <credential>` header (401 when missing or malformed). */
export function bearer(header: string | undefined): string {
  if (!header) throw unauthorized("Missing Authorization header");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized("Malformed Authorization header: expected `Bearer <credential>`");
  return match[1];
}

/**
 * Authenticates the request for one scheme of contract section 5 and stores the principal in
 * `c.var.auth`. Delegation tokens are not accepted here; Call opts into them itself.
 */
export function requireAuth(scheme: Scheme, rateLimit?: RateLimitedAction): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    let auth: AuthContext;
    try {
      auth = await authenticate(c.env.db, c.req.header("authorization"), scheme);
    } catch (err) {
      // Unauthenticated traffic is limited per client IP, and its 401 carries the headers too.
      if (rateLimit) await consumeRateLimit(c, rateLimit, `ip:${clientIp(c)}`);
      throw err;
    }
    if (rateLimit) await consumeRateLimit(c, rateLimit, `acct:${auth.accountId}`);
    c.set("auth", auth);
    c.env.accountId = auth.accountId;
    await next();
  };
}

async function authenticate(db: Db, header: string | undefined, scheme: Scheme): Promise<AuthContext> {
  const token = bearer(header);
  if (scheme !== "jwt" && looksLikeApiKey(token)) {
    const p = await authenticateApiKey(db, token);
    return { kind: "api_key", accountId: p.accountId, apiKeyId: p.apiKeyId };
  }
  if (scheme !== "api_key" && looksLikeJwt(token)) {
    const claims = await verifyAccessToken(db, token);
    if (claims.token_use !== "access") throw unauthorized("Delegation tokens are accepted only by Call");
    return { kind: "jwt", accountId: claims.acct, userId: claims.sub, role: claims.role, claims };
  }
  throw unauthorized(scheme === "jwt" ? "Malformed access token" : "Malformed API key");
}

/**
 * Any bearer credential the API knows, as its principal: an API key, a user's access token, or an
 * agent's delegation token. Callers apply their own policy (Call refuses user tokens; MCP admits
 * all three and lets each tool decide).
 */
export async function authenticateBearer(db: Db, header: string | undefined): Promise<AuthContext> {
  const token = bearer(header);
  if (looksLikeApiKey(token)) {
    const p = await authenticateApiKey(db, token);
    return { kind: "api_key", accountId: p.accountId, apiKeyId: p.apiKeyId };
  }
  if (looksLikeJwt(token)) {
    const claims = await verifyAccessToken(db, token);
    if (claims.token_use === "delegation") return { kind: "delegation", accountId: claims.acct, userId: claims.sub, claims };
    return { kind: "jwt", accountId: claims.acct, userId: claims.sub, role: claims.role, claims };
  }
  throw unauthorized("Malformed API key");
}

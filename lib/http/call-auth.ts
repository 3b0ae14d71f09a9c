import type { MiddlewareHandler } from "hono";
import { authenticateBearer } from "./auth";
import type { Db } from "../db/types";
import { forbidden, unauthorized } from "../errors";
import { CALL_SCOPE, missingScopes } from "../oauth/scopes";
import type { ApiEnv } from "./context";
import type { AuthContext } from "../auth/auth-context";
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
  const auth = await authenticateBearer(db, header);
  if (auth.kind === "jwt") {
    throw unauthorized("A user access token is not a Call credential: use an API key, or a delegation token from the token exchange grant");
  }
  if (auth.kind === "delegation" && missingScopes([CALL_SCOPE], auth.claims.scope).length > 0) throw forbidden(`This delegation token lacks the ${CALL_SCOPE} scope`);
  return auth;
}

import type { MiddlewareHandler } from "hono";
import type { Db } from "../db/types";
import { authenticateApiKey, looksLikeApiKey } from "../auth/api-keys";
import { looksLikeJwt, verifyAccessToken } from "../auth/jwt";
import type { UserRole } from "../vocab/roles";
import { DomainError, forbidden } from "../errors";
import { grantsAnyScope, type Scope } from "../oauth/scopes";
import type { ApiEnv } from "./context";
import type { AuthContext } from "../auth/auth-context";
import { clientIp, consumeRateLimit } from "./rate-limit";
import type { RateLimitedAction } from "./rate-limits";

/** A bearer credential: an API key, a user's OAuth access token, or an agent's delegation token (RFC 8693). */
export type Credential = "api_key" | "user_token" | "delegation_token";

/** Who may call an operation with a bearer credential (the rows of lib/api/access.ts). */
export type BearerAccess = {
  kind: "bearer";
  accepts: readonly Credential[];
  /** An OAuth token must hold one of these (an API key is the account's own credential and needs none); empty: any token. */
  scopes: readonly Scope[];
  /** Only users of these roles (with a user token) may call it, e.g. what limits spending is the owner's. */
  roles?: readonly UserRole[];
  /** What the role restriction protects, for its 403 message ("Only the account's owner may …"). */
  restricted?: string;
  /** The contract's per-minute bucket (section 8), counted per client IP before authentication and per account after. */
  limit?: RateLimitedAction;
  /**
   * Callable by a user who still has to set up two-factor sign-in in an account that requires it
   * (the enrolment itself); every other operation refuses that user's tokens with 403.
   */
  beforeTwoFactor?: true;
};

const EVERY_CREDENTIAL: readonly Credential[] = ["api_key", "user_token", "delegation_token"];

const CREDENTIAL_NAMES: Record<Credential, string> = {
  api_key: "an API key",
  user_token: "a user's OAuth access token",
  delegation_token: "an agent's delegation token (token exchange)",
};

function either(names: string[]): string {
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/** Who may call an operation, in words: its 401 guidance and its description in the OpenAPI document. */
export function describeAccess(access: Pick<BearerAccess, "accepts" | "scopes" | "roles">): string {
  const tokens = access.accepts.some((c) => c !== "api_key");
  const scope = !tokens || access.scopes.length === 0 ? "" : ` (a token needs the ${access.scopes.join(" or ")} scope)`;
  const roles = access.roles ? `; ${access.roles.join(" or ")} users only` : "";
  return `Send \`Authorization: Bearer <credential>\` with ${either(access.accepts.map((c) => CREDENTIAL_NAMES[c]))}${scope}${roles}.`;
}

/**
 * A 401. Without any credential the challenge carries no error code (RFC 6750 section 3.1); a
 * credential that is malformed, unknown, expired or not accepted here is `invalid_token`.
 */
function unauthenticated(message: string, guidance: string, missing = false): DomainError {
  return new DomainError("unauthorized", message, { guidance, challenge: missing ? "none" : "invalid_token" });
}

/** The credential of an `Authorization: Bearer <credential>` header (401 when missing or malformed). */
export function bearer(header: string | undefined, guidance = describeAccess({ accepts: EVERY_CREDENTIAL, scopes: [] })): string {
  if (!header) throw unauthenticated("Missing Authorization header", guidance, true);
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated("Malformed Authorization header: expected `Bearer <credential>`", guidance);
  return match[1];
}

function notAccepted(kind: Credential, accepts: readonly Credential[], guidance: string): DomainError {
  return unauthenticated(`This operation does not accept ${CREDENTIAL_NAMES[kind]}: it takes ${either(accepts.map((c) => CREDENTIAL_NAMES[c]))}`, guidance);
}

const credentialOf = (auth: AuthContext): Credential => (auth.kind === "api_key" ? "api_key" : auth.kind === "jwt" ? "user_token" : "delegation_token");

/**
 * The principal of a bearer credential that `accepts` admits: an API key, a user's access token,
 * or an agent's delegation token. A valid credential of another kind is a 401 that says which
 * kinds this operation takes; expired, revoked and unknown ones fail with their own message.
 */
export async function authenticateBearer(db: Db, header: string | undefined, accepts: readonly Credential[] = EVERY_CREDENTIAL, guidance?: string): Promise<AuthContext> {
  const help = guidance ?? describeAccess({ accepts, scopes: [] });
  const token = bearer(header, help);
  const notHere = (kind: Credential) => notAccepted(kind, accepts, help);
  try {
    if (looksLikeApiKey(token)) {
      if (!accepts.includes("api_key")) throw notHere("api_key");
      const p = await authenticateApiKey(db, token);
      return { kind: "api_key", accountId: p.accountId, apiKeyId: p.apiKeyId };
    }
    if (looksLikeJwt(token)) {
      const claims = await verifyAccessToken(db, token);
      if (claims.token_use === "delegation") {
        if (!accepts.includes("delegation_token")) throw notHere("delegation_token");
        return { kind: "delegation", accountId: claims.acct, userId: claims.sub, claims };
      }
      if (!accepts.includes("user_token")) throw notHere("user_token");
      return { kind: "jwt", accountId: claims.acct, userId: claims.sub, role: claims.role, claims };
    }
  } catch (err) {
    // Domain verbs say what is wrong with the credential; the guidance says what this operation takes.
    if (err instanceof DomainError && err.code === "unauthorized" && !err.details) throw unauthenticated(err.message, help);
    throw err;
  }
  const expected = accepts.includes("api_key") ? (accepts.length > 1 ? "an API key (tg_...) or a JWT access token" : "an API key (tg_...)") : "a JWT access token";
  throw unauthenticated(`Malformed credential: expected ${expected}`, help);
}

/** The 403 of an OAuth token without the operation's scope (RFC 6750 section 3.1 `insufficient_scope`). */
export function insufficientScope(anyOf: readonly Scope[], granted: string): DomainError {
  const have = granted.trim() ? `it holds ${granted.trim()}` : "it holds none";
  return new DomainError("forbidden", `This access token lacks the ${anyOf.join(" or ")} scope (${have}); ask for it when the token is granted`, { required_scope: anyOf.join(" ") });
}

/** Scope and role, after authentication: what an authenticated principal may still be refused (403). */
export function authorizeAccess(auth: AuthContext, access: Pick<BearerAccess, "scopes" | "roles" | "restricted" | "beforeTwoFactor">): void {
  if (auth.kind !== "api_key" && !grantsAnyScope(access.scopes, auth.claims.scope)) throw insufficientScope(access.scopes, auth.claims.scope);
  if (auth.kind !== "api_key" && auth.claims.twoFactorMissing && !access.beforeTwoFactor) {
    throw forbidden("This account requires two-factor sign-in: set it up first (dashboard, Security; or POST /auth/user/two-factor/enrolment)");
  }
  if (access.roles && (auth.kind !== "jwt" || !access.roles.includes(auth.role))) {
    const who = access.roles.map((r) => (r === "owner" ? "the account's owner" : `${r} users`)).join(" or ");
    throw forbidden(`Only ${who} may ${access.restricted ?? "do this"}${auth.kind === "jwt" ? ` (you are signed in as ${auth.role})` : ""}`);
  }
}

/**
 * An authenticated principal against a row of the access table: its kind (401), scope and roles
 * (403). MCP's tools apply the rows of their REST operations, so both refuse alike.
 */
export function admit(auth: AuthContext, access: BearerAccess): void {
  const kind = credentialOf(auth);
  if (!access.accepts.includes(kind)) throw notAccepted(kind, access.accepts, describeAccess(access));
  authorizeAccess(auth, access);
}

/**
 * Authenticates the request for one row of the access table (lib/api/access.ts): the credential
 * kinds it accepts, then its scope and roles, and its rate-limit bucket. The principal is stored in
 * `c.var.auth`.
 */
export function requireAccess(access: BearerAccess): MiddlewareHandler<ApiEnv> {
  const guidance = describeAccess(access);
  const { limit } = access;
  return async (c, next) => {
    let auth: AuthContext;
    try {
      auth = await authenticateBearer(c.env.db, c.req.header("authorization"), access.accepts, guidance);
    } catch (err) {
      // Unauthenticated traffic is limited per client IP, and its 401 carries the headers too.
      if (limit) await consumeRateLimit(c, limit, `ip:${clientIp(c)}`);
      throw err;
    }
    authorizeAccess(auth, access);
    if (limit) await consumeRateLimit(c, limit, `acct:${auth.accountId}`);
    c.set("auth", auth);
    c.env.accountId = auth.accountId;
    await next();
  };
}

import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { DomainError, type ErrorCode, type ValidationIssue } from "../errors";
import { OAuthError } from "../oauth/errors";
import { oauthErrorResponse } from "./oauth-errors";
import { logger } from "../log";
import { isDatabaseUnavailable } from "../db/unavailable";
import { httpValidationError, invalidQuery, publicApiError } from "./responses";

const KEYS_HINT = "Create API keys in the dashboard or with `npm run cli -- keys create`; get OAuth tokens from /api/v1/oauth/token (docs/oauth.md).";

const AUTH_GUIDANCE =
  "Send `Authorization: Bearer <API_KEY>` (or an OAuth access token where the operation accepts one). " +
  "Create keys in the dashboard under API keys or with `npm run cli -- keys create`.";

/** A quoted-string of an RFC 7235 auth-param: printable ASCII (a header carries no more), no quotes or backslashes inside. */
const quoted = (value: string) => `"${value.replaceAll(/["\\]/g, "'").replaceAll(/[^\x20-\x7e]/g, "?")}"`;

/** Maps a domain error to the contract's shape. Exhaustive: a new ErrorCode fails to compile here. */
export function domainErrorResponse(c: Context, err: DomainError) {
  const code: ErrorCode = err.code;
  switch (code) {
    case "unauthorized": {
      // RFC 6750 section 3.1: a request without any credential gets a challenge without an error code.
      const missing = err.details?.challenge === "none";
      c.header("WWW-Authenticate", missing ? 'Bearer realm="tollgate"' : `Bearer realm="tollgate", error="invalid_token", error_description=${quoted(err.message)}`);
      const guidance = typeof err.details?.guidance === "string" ? `${err.details.guidance} ${KEYS_HINT}` : AUTH_GUIDANCE;
      return publicApiError(c, 401, err.message, { guidance, remaining_credits: null });
    }
    case "forbidden": {
      const scope = err.details?.required_scope;
      if (typeof scope === "string") c.header("WWW-Authenticate", `Bearer realm="tollgate", error="insufficient_scope", scope=${quoted(scope)}, error_description=${quoted(err.message)}`);
      return publicApiError(c, 403, err.message);
    }
    case "not_found":
      return publicApiError(c, 404, err.message);
    case "invalid_input":
      return invalidQuery(c, err.message);
    case "insufficient_credits":
      return publicApiError(c, 402, err.message, { remaining_credits: (err.details?.remaining_credits as number) ?? null });
    case "rate_limited":
      return publicApiError(c, 429, err.message);
    case "conflict":
      return publicApiError(c, 409, err.message);
    case "upstream_unavailable":
      return publicApiError(c, 502, err.message);
    case "upstream_timeout":
      return publicApiError(c, 504, err.message);
  }
}

export function zodIssuesToDetail(error: ZodError, target?: string): ValidationIssue[] {
  return error.issues.map((issue) => ({
    type: issue.code,
    loc: [...(target ? [locTarget(target)] : []), ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    msg: issue.message,
    input: "input" in issue ? issue.input : undefined,
  }));
}

function locTarget(target: string): string {
  return target === "json" ? "body" : target;
}

/** The app's last resort: domain errors get their shape, anything else is a logged 500 in the contract's shape. */
export function handleError(err: Error, c: Context) {
  if (err instanceof DomainError) return domainErrorResponse(c, err);
  if (err instanceof OAuthError) return oauthErrorResponse(c, err);
  // The request validators throw HTTPException (e.g. 400 for a body that is not JSON): a client error, never a 500.
  if (err instanceof HTTPException && err.status < 500) {
    return publicApiError(c, err.status, /JSON/i.test(err.message) ? "Request body is not valid JSON" : err.message);
  }
  if (err instanceof SyntaxError && /JSON/i.test(err.message)) {
    return httpValidationError(c, [{ type: "json_invalid", loc: ["body"], msg: "Request body is not valid JSON" }]);
  }
  if (isDatabaseUnavailable(err)) {
    logger.warn({ requestId: c.env.requestId, err: err.message }, "database unavailable");
    c.header("Retry-After", "1");
    return publicApiError(c, 503, "The database is unavailable; retry shortly");
  }
  logger.error({ requestId: c.env.requestId, err: { message: err.message, stack: err.stack } }, "unhandled error");
  return publicApiError(c, 500, "Internal server error");
}

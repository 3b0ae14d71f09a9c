import type { Context, MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { OAuthError, oauthError, wireErrorCode } from "../oauth/errors";
import type { ApiEnv } from "./context";
import { isUnstorableIssue } from "./storable-input";

const BASIC_CHALLENGE = 'Basic realm="tollgate", charset="UTF-8"';

/** RFC 6749 section 5.2: error_description is printable ASCII without `"` and `\`. */
function description(message: string): string {
  return message.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, "?");
}

/**
 * Maps an OAuth protocol error to its status and `OAuthErrorResponse` body. Exhaustive: a new
 * OAuthErrorCode fails to compile here.
 */
export function oauthErrorResponse(c: Context, err: OAuthError) {
  const body = { error: wireErrorCode(err.code), error_description: description(err.message) };
  c.header("Cache-Control", "no-store");
  switch (err.code) {
    case "invalid_client":
      c.header("WWW-Authenticate", BASIC_CHALLENGE);
      return c.json(body, 401);
    case "invalid_subject_token":
      // The subject token is a bearer token that failed verification (contract 4.6: 401).
      c.header("WWW-Authenticate", `Bearer error="invalid_token", error_description="${body.error_description}"`);
      return c.json(body, 401);
    case "insufficient_scope":
    case "client_forbidden":
      return c.json(body, 403);
    case "invalid_parameter":
      return c.json(body, 422);
    case "rate_limited":
      return c.json(body, 429);
    case "invalid_request":
    case "invalid_grant":
    case "unauthorized_client":
    case "unsupported_grant_type":
    case "invalid_scope":
    case "invalid_target":
    case "authorization_pending":
    case "slow_down":
    case "expired_token":
    case "access_denied":
      return c.json(body, 400);
  }
}

/** OAuth endpoints take `application/x-www-form-urlencoded` bodies only (RFC 6749 section 3.2). */
export function requireFormEncoded(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded") {
      return oauthErrorResponse(c, oauthError("invalid_request", "The request body must be application/x-www-form-urlencoded"));
    }
    await next();
  };
}

/**
 * A request validation failure as an OAuth error: a missing or repeated parameter is a malformed
 * request (400 `invalid_request`, RFC 6749 section 5.2); a present value outside the contract's
 * bounds (lengths, counts, ranges) is 422. A value that is not storable text (U+0000, an unpaired
 * surrogate) is malformed: 400 `invalid_request`.
 */
export function oauthValidationError(error: ZodError, raw: Record<string, unknown>, arrayFields: readonly string[] = []): OAuthError {
  const unstorable = error.issues.find(isUnstorableIssue);
  if (unstorable) return oauthError("invalid_request", `${unstorable.path.join(".") || "body"}: ${unstorable.message}`);
  const issues = error.issues.map((issue) => ({ field: String(issue.path[0] ?? ""), message: issue.message, path: issue.path.join(".") }));
  const missing = issues.find((i) => raw[i.field] === undefined || raw[i.field] === "");
  if (missing) return oauthError("invalid_request", `${missing.field || "a parameter"} is required`);
  const repeated = issues.find((i) => Array.isArray(raw[i.field]) && !arrayFields.includes(i.field));
  if (repeated) return oauthError("invalid_request", `${repeated.field} must not be repeated`);
  const first = issues[0];
  return oauthError("invalid_parameter", `${first.path || "body"}: ${first.message}`);
}

/**
 * The validation hook of OAuth routes (the validator passes the raw form as `data`). It throws:
 * the app's error handler answers in the OAuth shape, whatever statuses the route declares.
 */
export function oauthFormHook(arrayFields: readonly string[] = []) {
  return <T>(result: { success: true; data: T } | { success: false; error: ZodError }): undefined => {
    if (result.success) return undefined;
    throw oauthValidationError(result.error, rawInput(result), arrayFields);
  };
}

/** The unvalidated input, which @hono/zod-validator hands to hooks beside the error. */
export function rawInput(result: object): Record<string, unknown> {
  const data = (result as { data?: unknown }).data;
  return data && typeof data === "object" ? (data as Record<string, unknown>) : {};
}

import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ValidationIssue } from "../errors";

/** The `APIResponse` wrapper of account endpoints: status_code 0 on success. */
export function apiOk<T>(c: Context, data: T, message = "success") {
  return c.json({ status: "success" as const, message, status_code: 0 as const, data }, 200);
}

/** An invalid audit/ledger query: 400 with status_code -7 and data null. */
export function invalidQuery(c: Context, message: string) {
  return c.json({ status: "failure" as const, message, status_code: -7 as const, data: null }, 400);
}

export function publicApiError<S extends ContentfulStatusCode>(
  c: Context,
  status: S,
  message: string,
  data?: { guidance?: string; remaining_credits?: number | null },
) {
  return c.json({ status: "failure" as const, status_code: status, message, ...(data ? { data } : {}) }, status);
}

export function httpValidationError(c: Context, detail: ValidationIssue[]) {
  return c.json({ detail }, 422);
}

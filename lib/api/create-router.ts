import { OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "../http/context";
import { zodIssuesToDetail } from "../http/errors";
import { httpValidationError } from "../http/responses";

/**
 * A router whose request validation failures answer 422 `HTTPValidationError`
 * (`{detail: [{type, loc, msg, input}]}`) instead of the library's default message.
 * Operations with another 422 shape (Call, OAuth) pass their own hook.
 */
export function createRouter() {
  return new OpenAPIHono<ApiEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return httpValidationError(c, zodIssuesToDetail(result.error, result.target));
    },
  });
}

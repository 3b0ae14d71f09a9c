import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodError } from "zod";
import type { ApiEnv } from "../http/context";
import { zodIssuesToDetail } from "../http/errors";
import { httpValidationError } from "../http/responses";
import { unstorableError } from "../http/storable-input";

type HookResult = { success: true; data: unknown; target: string } | { success: false; error: ZodError; data: unknown; target: string };
type Hook = (result: HookResult, c: Context<ApiEnv>) => unknown;

const validationFailure: Hook = (result, c) => {
  if (!result.success) return httpValidationError(c, zodIssuesToDetail(result.error, result.target));
};

/**
 * Every operation's validation hook, behind one rule: input that passed its schema but carries
 * text PostgreSQL cannot store (U+0000, an unpaired surrogate) or nests too deeply is handed to
 * the operation's own hook as a failure, so it answers in that operation's error shape.
 */
function storable(hook: Hook): Hook {
  return async (result, c) => {
    if (!result.success) return hook(result, c);
    let target = result.target;
    let error = unstorableError(result.data);
    // Query parameters the schema does not declare are dropped from `data`, yet still in the URL
    // (and in a support read's access log): a NUL there is refused too. Only %00 decodes to one.
    if (!error && c.req.url.includes("%00")) {
      error = unstorableError(c.req.queries());
      target = "query";
    }
    if (!error) return hook(result, c);
    const failure: HookResult = { success: false, error, data: result.data, target };
    // A hook that lets a failure through would let the request through: answer it here instead.
    return (await hook(failure, c)) ?? validationFailure(failure, c);
  };
}

/**
 * A router whose request validation failures answer 422 `HTTPValidationError`
 * (`{detail: [{type, loc, msg, input}]}`) instead of the library's default message.
 * Operations with another 422 shape (Call, OAuth) pass their own hook; every hook, theirs
 * included, is wrapped by `storable`.
 */
export function createRouter() {
  const app = new OpenAPIHono<ApiEnv>();
  const register = app.openapi;
  app.openapi = ((route, handler, hook) => register(route, handler, storable((hook as Hook | undefined) ?? validationFailure) as never)) as typeof app.openapi;
  return app;
}

import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { ApiEnv } from "../http/context";
import { zodIssuesToDetail } from "../http/errors";
import { httpValidationError } from "../http/responses";
import { unstorableError } from "../http/storable-input";
import { fusedValidator, type Hook, type HookResult } from "./validate-request";

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

type Handler = (c: Context<ApiEnv>, ...rest: never[]) => unknown;

/** `fn`, first naming the request's operation in `c.env` (the metrics' `operation` label). */
export function namedOperation<F extends Handler>(operation: string, fn: F): F {
  return ((c: Context<ApiEnv>, ...rest: never[]) => {
    c.env.operation = operation;
    return fn(c, ...rest);
  }) as F;
}

const middlewareOf = (route: RouteConfig) => (route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware]);

/**
 * Names the request's operation (`POST /tools/execute`: method and OpenAPI path) before anything
 * of the route can answer: in its first middleware (authentication, which may refuse, or the
 * validation); in a middleware of its own when the library validates its input (already a chain of
 * middleware); else in the handler, so a route without middleware still runs synchronously.
 */
function withOperation(route: RouteConfig, handler: Handler): { route: RouteConfig; handler: Handler } {
  const operation = `${route.method.toUpperCase()} ${route.path}`;
  const named = <F extends Handler>(fn: F): F => namedOperation(operation, fn);
  const middleware = middlewareOf(route);
  if (middleware.length > 0) return { route: { ...route, middleware: [named(middleware[0] as MiddlewareHandler<ApiEnv>), ...middleware.slice(1)] }, handler };
  if (route.request) return { route: { ...route, middleware: [named((_c: Context<ApiEnv>, next: () => Promise<void>) => next())] }, handler };
  return { route, handler: named(handler) };
}

/**
 * A router whose request validation failures answer 422 `HTTPValidationError`
 * (`{detail: [{type, loc, msg, input}]}`) instead of the library's default message.
 * Operations with another 422 shape (Call, OAuth) pass their own hook; every hook, theirs
 * included, is wrapped by `storable`. Every operation names itself for the metrics.
 *
 * A route's input is validated by one middleware (`fusedValidator`: the library's answers, with less
 * work) where it can be; the route is still described in the OpenAPI document as declared.
 */
export function createRouter() {
  const app = new OpenAPIHono<ApiEnv>();
  const register = app.openapi;
  app.openapi = ((config, action, hook) => {
    const checked = storable((hook as Hook | undefined) ?? validationFailure);
    const validate = fusedValidator(config.request, checked);
    if (!validate) {
      const { route, handler } = withOperation(config, action as Handler);
      return register(route as never, handler as never, checked as never);
    }
    const { middleware: _, hide, ...described } = config;
    if (!hide) app.openAPIRegistry.registerPath(described);
    // Routed without `request` (the library adds no validators of its own), `validate` after the route's middleware.
    const routed = { method: config.method, path: config.path, middleware: [...middlewareOf(config), validate] } as RouteConfig;
    const { route, handler } = withOperation(routed, action as Handler);
    return register({ ...route, hide: true } as never, handler as never);
  }) as typeof app.openapi;
  return app;
}

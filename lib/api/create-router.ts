import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { ApiEnv } from "../http/context";
import { zodIssuesToDetail } from "../http/errors";
import { httpValidationError } from "../http/responses";
import { unstorableError } from "../http/storable-input";
import { fusedValidator, type Hook, type HookResult } from "./validate-request";
import { accessOf, securityOf } from "./access";
import { describeAccess, requireAccess } from "../http/auth";
import { PublicApiErrorSchema } from "../http/schemas";

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

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });

/**
 * What the access table (lib/api/access.ts) says of an operation, written into its OpenAPI
 * description: its `security`, who may call it in words, and the 401/403 its check can answer.
 */
function documented<R extends Pick<RouteConfig, "method" | "path" | "operationId" | "security" | "description" | "responses">>(route: R): R {
  const access = accessOf(route.operationId, `${route.method.toUpperCase()} ${route.path}`);
  const security = securityOf(access);
  // Every request passes the body limit first (lib/http/request-context.ts), whatever its operation.
  const tooLarge = { 413: errorResponse("Request body over the limit (MAX_BODY_BYTES, 1 MiB by default)") };
  if (access.kind !== "bearer") return { ...route, security, responses: { ...tooLarge, ...route.responses } };
  const refusal = access.scopes.length > 0 || access.roles ? `The token lacks the ${access.scopes.join(" or ")} scope (\`WWW-Authenticate: Bearer error="insufficient_scope"\`)${access.roles ? `, or the user is not ${access.roles.join(" or ")}` : ""}` : undefined;
  const own = route.responses[403] as { description: string } | undefined;
  // A 403 the operation declares for its own reasons is kept, with the access table's added to its description.
  const refusals = refusal ? { 403: own ? { ...own, description: `${own.description}; or: ${refusal}` } : errorResponse(refusal) } : {};
  const who = `**Access:** ${describeAccess(access)}`;
  return {
    ...route,
    security,
    description: route.description ? `${route.description}\n\n${who}` : who,
    responses: { 401: errorResponse("Missing, malformed, expired or unrecognised credential, or one this operation does not accept"), ...tooLarge, ...route.responses, ...refusals },
  };
}

/** The operation's authentication and authorization middleware, from its row of the access table, before its own. */
function withAccessCheck(route: RouteConfig): RouteConfig {
  const access = accessOf(route.operationId, `${route.method.toUpperCase()} ${route.path}`);
  if (access.kind !== "bearer") return route;
  return { ...route, middleware: [requireAccess(access), ...middlewareOf(route)] };
}

/**
 * A router whose request validation failures answer 422 `HTTPValidationError`
 * (`{detail: [{type, loc, msg, input}]}`) instead of the library's default message.
 * Operations with another 422 shape (Call, OAuth) pass their own hook; every hook, theirs
 * included, is wrapped by `storable`. Every operation names itself for the metrics.
 *
 * Every operation is named (`operationId`) and authenticated by its row of the access table
 * (lib/api/access.ts): an operation without one fails here, at registration.
 *
 * A route's input is validated by one middleware (`fusedValidator`: the library's answers, with less
 * work) where it can be; the route is still described in the OpenAPI document as declared.
 */
export function createRouter() {
  const app = new OpenAPIHono<ApiEnv>();
  const register = app.openapi;
  const registry = app.openAPIRegistry;
  const registerPath = registry.registerPath.bind(registry);
  registry.registerPath = (route) => registerPath(documented(route));
  app.openapi = ((declared, action, hook) => {
    const config = withAccessCheck(declared);
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

// POST /api/v1/oauth/device/authorize — RFC 8628 device authorization request
import { createRoute } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { ApiApp, ApiEnv } from "../../http/context";
import { DomainError } from "../../errors";
import { clientIp, consumeRateLimit } from "../../http/rate-limit";
import { oauthFormHook, requireFormEncoded } from "../../http/oauth-errors";
import { authenticateClient } from "../../oauth/client-auth";
import { startDeviceAuthorization } from "../../oauth/device";
import {
  DeviceAuthorizationRequestSchema,
  DeviceAuthorizationResponseSchema,
  OAuthRateLimitResponseSchema,
  jsonContent,
  oauthErrorContent,
  rateLimitHeaders,
} from "./oauth-schemas";

/** Anonymous and cheap to call: limited per client IP before any work is done. */
const rateLimit: MiddlewareHandler<ApiEnv> = async (c, next) => {
  try {
    await consumeRateLimit(c, "device_authorize", `ip:${clientIp(c)}`);
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== "rate_limited") throw err;
    const retryAfter = Number(err.details?.retry_after ?? 60);
    return c.json({ error: "rate_limited" as const, error_description: err.message, retry_after: retryAfter }, 429);
  }
  await next();
};

const route = createRoute({
  method: "post",
  path: "/oauth/device/authorize",
  operationId: "authorizeDevice",
  tags: ["OAuth"],
  summary: "Device authorization (RFC 8628): a device code for the client, a user code for the person",
  description:
    "The person opens `verification_uri` in the dashboard, signs in, enters `user_code` (or opens `verification_uri_complete`) and approves or denies for their account; meanwhile the client polls the token endpoint with the device_code grant.",
  middleware: [requireFormEncoded(), rateLimit] as const,
  request: { body: { content: { "application/x-www-form-urlencoded": { schema: DeviceAuthorizationRequestSchema } }, required: true } },
  responses: {
    200: { ...jsonContent(DeviceAuthorizationResponseSchema, "Device authorization response"), headers: rateLimitHeaders },
    400: oauthErrorContent("invalid_request, invalid_scope, invalid_target or unauthorized_client (client not registered for the device grant)"),
    401: oauthErrorContent("invalid_client (with WWW-Authenticate: Basic)"),
    422: oauthErrorContent("A parameter outside its bounds"),
    429: { ...jsonContent(OAuthRateLimitResponseSchema, "Rate limited (Retry-After and rate-limit headers)"), headers: rateLimitHeaders },
  },
});

export function registerOAuthDeviceAuthorize(app: ApiApp) {
  app.openapi(
    route,
    async (c) => {
      const form = c.req.valid("form");
      const { client } = await authenticateClient(c.env.db, { authorization: c.req.header("authorization"), clientId: form.client_id });
      const response = await startDeviceAuthorization(c.env.db, { client, scope: form.scope, resource: form.resource });
      c.header("Cache-Control", "no-store");
      return c.json(response, 200);
    },
    oauthFormHook(),
  );
}

// POST /api/v1/oauth/introspect — RFC 7662 token introspection for Resource Server clients
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { oauthFormHook, requireFormEncoded } from "../../http/oauth-errors";
import { authenticateClient } from "../../oauth/client-auth";
import { oauthError } from "../../oauth/errors";
import { introspectToken } from "../../oauth/introspect";
import {
  IntrospectionRequestSchema,
  OAuthIntrospectionActiveResponseSchema,
  OAuthIntrospectionInactiveResponseSchema,
  oauthErrorContent,
} from "./oauth-schemas";

const route = createRoute({
  method: "post",
  path: "/oauth/introspect",
  operationId: "introspectToken",
  tags: ["OAuth"],
  summary: "Introspect an access or delegation token (RFC 7662)",
  description:
    "For allow-listed confidential Resource Server clients (HTTP Basic). `resource` must equal the client's registered resource and the token's audience. An invalid, expired, revoked or wrong-audience token answers exactly `{\"active\": false}`.",
  middleware: [requireFormEncoded()] as const,
  request: { body: { content: { "application/x-www-form-urlencoded": { schema: IntrospectionRequestSchema } }, required: true } },
  responses: {
    200: {
      description: "Active token, or `{active: false}`",
      content: { "application/json": { schema: OAuthIntrospectionActiveResponseSchema.or(OAuthIntrospectionInactiveResponseSchema) } },
    },
    400: oauthErrorContent("invalid_request"),
    401: oauthErrorContent("invalid_client (WWW-Authenticate: Basic)"),
    403: oauthErrorContent("The client is not a Resource Server, or not registered for this resource"),
    422: oauthErrorContent("resource is not an absolute URI"),
  },
});

export function registerOAuthIntrospect(app: ApiApp) {
  app.openapi(
    route,
    async (c) => {
      const db = c.env.db;
      const form = c.req.valid("form");
      const authorization = c.req.header("authorization");
      if (!authorization) throw oauthError("invalid_client", "Introspection requires HTTP Basic authentication of a Resource Server client");
      const { client } = await authenticateClient(db, { authorization });
      c.header("Cache-Control", "no-store");
      return c.json(await introspectToken(db, { client, token: form.token, resource: form.resource }), 200);
    },
    oauthFormHook(),
  );
}

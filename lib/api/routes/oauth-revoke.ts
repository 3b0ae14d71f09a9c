// POST /api/v1/oauth/revoke — RFC 7009 token revocation
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { oauthFormHook, requireFormEncoded } from "../../http/oauth-errors";
import { authenticateClient } from "../../oauth/client-auth";
import { revokeToken } from "../../oauth/revoke";
import { EmptyObjectSchema, RevocationRequestSchema, jsonContent, oauthErrorContent } from "./oauth-schemas";

const route = createRoute({
  method: "post",
  path: "/oauth/revoke",
  operationId: "revokeToken",
  tags: ["OAuth"],
  summary: "Revoke a refresh, access or delegation token (RFC 7009)",
  description:
    "A refresh token revokes its whole family and the access tokens issued with it; a revoked access or delegation token then fails at introspection, at JWT endpoints and at Call. Unknown, invalid and expired tokens also answer 200 `{}`.",
  middleware: [requireFormEncoded()] as const,
  request: { body: { content: { "application/x-www-form-urlencoded": { schema: RevocationRequestSchema } }, required: true } },
  responses: {
    200: jsonContent(EmptyObjectSchema, "Revoked, or nothing to revoke"),
    400: oauthErrorContent("invalid_request"),
    401: oauthErrorContent("invalid_client (WWW-Authenticate: Basic)"),
    403: oauthErrorContent("The token was issued to another client"),
    422: oauthErrorContent("A parameter outside its bounds"),
  },
});

export function registerOAuthRevoke(app: ApiApp) {
  app.openapi(
    route,
    async (c) => {
      const db = c.env.db;
      const form = c.req.valid("form");
      const { client } = await authenticateClient(db, { authorization: c.req.header("authorization"), clientId: form.client_id });
      await revokeToken(db, { client, token: form.token });
      return c.json({}, 200);
    },
    oauthFormHook(),
  );
}

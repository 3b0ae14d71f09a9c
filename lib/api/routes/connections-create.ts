// POST /api/v1/auth/connections — connect an account at a provider: an OAuth sign-in to start, or a pasted secret (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { connectWithSecret, startOAuthConnect } from "../../connections/connections";
import { requestActor } from "../request-actor";
import { connectionActor } from "./connections-actor";
import { CONNECTIONS_EXTENSION, CreateConnectionBodySchema, CreatedConnectionSchema, connectionErrorResponses } from "./connections-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/connections",
  operationId: "createConnection",
  tags: ["Connections"],
  summary: "Connect an account at a provider: OAuth providers answer an authorization_url for the browser, secret providers store the pasted secret (JWT)",
  description: `${CONNECTIONS_EXTENSION} The OAuth flow uses PKCE (S256) and a single-use state bound to this user, account and provider, valid 10 minutes; the provider returns to \`/api/v1/connections/callback\`. Connecting again replaces the connection's tokens (reconnect).`,
  request: { body: { content: { "application/json": { schema: CreateConnectionBodySchema } }, required: true } },
  responses: {
    200: { description: "The authorization URL, or the new connection", content: { "application/json": { schema: apiResponse(CreatedConnectionSchema, "CreatedConnectionResponse") } } },
    ...connectionErrorResponses,
    ...accountErrorResponses,
  },
});

export function registerConnectionsCreate(app: ApiApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const who = { ...connectionActor(c), actor: await requestActor(c) };
    if (body.secret) {
      const connection = await connectWithSecret(c.env.db, who, { providerId: body.provider_id, shared: body.shared, secret: body.secret });
      return apiOk(c, { kind: "secret" as const, connection });
    }
    const flow = await startOAuthConnect(c.env.db, who, { providerId: body.provider_id, shared: body.shared, scopes: body.scopes, returnTo: body.return_to ?? "/connections" });
    return apiOk(c, { kind: "oauth2" as const, ...flow });
  });
}

// DELETE /api/v1/auth/connections/{connection_id} — disconnect: revoked at the provider where it can be, tokens deleted (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { disconnect } from "../../connections/connections";
import { requestActor } from "../request-actor";
import { connectionActor } from "./connections-actor";
import { CONNECTIONS_EXTENSION, ConnectionIdParam, DisconnectedSchema, connectionErrorResponses } from "./connections-schemas";

const route = createRoute({
  method: "delete",
  path: "/auth/connections/{connection_id}",
  operationId: "deleteConnection",
  tags: ["Connections"],
  summary: "Disconnect: the tokens are revoked at the provider (RFC 7009, where it has the endpoint) and deleted; yours, or any of the account's for owners (JWT)",
  description: CONNECTIONS_EXTENSION,
  request: { params: ConnectionIdParam },
  responses: {
    200: { description: "Disconnected", content: { "application/json": { schema: apiResponse(DisconnectedSchema, "DisconnectedConnectionResponse") } } },
    ...connectionErrorResponses,
    ...accountErrorResponses,
  },
});

export function registerConnectionsRemove(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { connection_id } = c.req.valid("param");
    return apiOk(c, await disconnect(c.env.db, { ...connectionActor(c), actor: await requestActor(c) }, connection_id));
  });
}

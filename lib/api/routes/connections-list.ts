// GET /api/v1/auth/connections — the caller's connections, the account's shared ones, and the providers one can connect (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { connectableProviders, connectionSharing, listConnections } from "../../connections/connections";
import { connectionActor } from "./connections-actor";
import { CONNECTIONS_EXTENSION, ConnectionListSchema } from "./connections-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/connections",
  operationId: "listConnections",
  tags: ["Connections"],
  summary: "Connected accounts at third-party providers: yours and the account's shared ones (owners and support: every member's); never a token (JWT)",
  description: CONNECTIONS_EXTENSION,
  responses: {
    200: { description: "Connections and connectable providers", content: { "application/json": { schema: apiResponse(ConnectionListSchema, "ConnectionListResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerConnectionsList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const who = connectionActor(c);
    const db = c.env.db;
    const [connections, sharing, providers] = await Promise.all([listConnections(db, who), connectionSharing(db, who.accountId), connectableProviders(db)]);
    return apiOk(c, { connections, sharing, providers });
  });
}

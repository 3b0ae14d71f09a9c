// PUT /api/v1/auth/connections/sharing — who may share connections with the whole account (owner; extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { setConnectionSharing } from "../../connections/connections";
import { requestActor } from "../request-actor";
import { connectionActor } from "./connections-actor";
import { CONNECTIONS_EXTENSION, ConnectionSharingSchema } from "./connections-schemas";

const SharingBody = z.object({ sharing: ConnectionSharingSchema }).strict().openapi("ConnectionSharingRequest");

const route = createRoute({
  method: "put",
  path: "/auth/connections/sharing",
  operationId: "setConnectionSharing",
  tags: ["Connections"],
  summary: "Decide who may share a connection with the whole account: owners only (default) or any member (JWT, owner)",
  description: CONNECTIONS_EXTENSION,
  request: { body: { content: { "application/json": { schema: SharingBody } }, required: true } },
  responses: {
    200: { description: "The setting", content: { "application/json": { schema: apiResponse(SharingBody, "ConnectionSharingResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerConnectionsSharing(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { sharing } = c.req.valid("json");
    return apiOk(c, await setConnectionSharing(c.env.db, { ...connectionActor(c), actor: await requestActor(c) }, sharing));
  });
}

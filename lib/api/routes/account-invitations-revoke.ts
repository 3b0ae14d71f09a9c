// DELETE /api/v1/auth/account/invitations/{invitation_id} — revoke a pending invitation (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { revokeInvitation } from "../../accounts/members";
import { requestActor } from "../request-actor";
import { InvitationParams, InvitationSchema, TEAM_EXTENSION, error } from "./account-members-schemas";

const route = createRoute({
  method: "delete",
  path: "/auth/account/invitations/{invitation_id}",
  operationId: "revokeAccountInvitation",
  tags: ["Members"],
  summary: "Revoke a pending invitation: its link then says so (owner's JWT)",
  description: TEAM_EXTENSION,
  request: { params: InvitationParams },
  responses: {
    200: { description: "The invitation, revoked", content: { "application/json": { schema: apiResponse(InvitationSchema, "RevokedInvitationResponse") } } },
    404: error("No such invitation in the caller's account"),
    409: error("The invitation was already accepted, revoked, or has expired"),
    ...accountErrorResponses,
  },
});

export function registerAccountInvitationsRevoke(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { invitation_id: invitationId } = c.req.valid("param");
    return apiOk(c, await revokeInvitation(c.env.db, { accountId: c.get("auth").accountId, invitationId, actor: await requestActor(c) }));
  });
}

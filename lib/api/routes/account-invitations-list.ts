// GET /api/v1/auth/account/invitations — the account's invitations, newest first (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { listInvitations } from "../../accounts/members";
import { auditErrorResponses, auditRead } from "../audit-route-support";
import { InvitationSchema, SupportAccountQuery, TEAM_EXTENSION } from "./account-members-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/account/invitations",
  operationId: "listAccountInvitations",
  tags: ["Members"],
  summary: "The account's invitations with their status: pending, accepted, revoked or expired (JWT)",
  description: `${TEAM_EXTENSION} The links themselves are never shown again (only their hash is kept).`,
  request: { query: SupportAccountQuery },
  responses: {
    200: { description: "Invitations, newest first", content: { "application/json": { schema: apiResponse(z.object({ items: z.array(InvitationSchema) }), "AccountInvitationListResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerAccountInvitationsList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    return apiOk(c, { items: await auditRead(c, { accountId: q.account_id }, (accountId) => listInvitations(c.env.db, accountId)) });
  });
}

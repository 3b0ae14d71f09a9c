// POST /api/v1/auth/account/invitations — invite an email to the account with a role (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { inviteByMail } from "../../accounts/invitation-mail";
import { requestActor } from "../request-actor";
import { CreateInvitationBodySchema, CreatedInvitationSchema, TEAM_EXTENSION, error } from "./account-members-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/account/invitations",
  operationId: "createAccountInvitation",
  tags: ["Members"],
  summary: "Invite someone by email: a single-use link valid 7 days, mailed when SMTP_URL is set (owner's JWT)",
  description:
    `${TEAM_EXTENSION} The link is returned in \`invitation_url\` (only here) whether or not it was mailed; a mail that fails ` +
    "does not undo the invitation (`mail_sent: false`, `mail_error`). Someone already a user of another account joins with their own password.",
  request: { body: { content: { "application/json": { schema: CreateInvitationBodySchema } }, required: true } },
  responses: {
    200: { description: "The invitation and its link", content: { "application/json": { schema: apiResponse(CreatedInvitationSchema, "CreatedInvitationResponse") } } },
    409: error("That email is already a member of the account, or support staff and customers would share it (docs/team.md)"),
    ...accountErrorResponses,
  },
});

export function registerAccountInvitationsCreate(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { email, role } = c.req.valid("json");
    const auth = c.get("auth");
    const invitedBy = auth.kind === "api_key" ? null : auth.userId;
    return apiOk(c, await inviteByMail(c.env.db, { accountId: auth.accountId, email, role, invitedBy, actor: await requestActor(c) }));
  });
}

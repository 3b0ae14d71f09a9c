// PATCH /api/v1/auth/account/members/{user_id} — change a member's role (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { changeMemberRole } from "../../accounts/members";
import { requestActor } from "../request-actor";
import { ChangeRoleBodySchema, MemberParams, RoleChangedSchema, TEAM_EXTENSION, error } from "./account-members-schemas";

const route = createRoute({
  method: "patch",
  path: "/auth/account/members/{user_id}",
  operationId: "changeAccountMemberRole",
  tags: ["Members"],
  summary: "Change a member's role (owner's JWT)",
  description: `${TEAM_EXTENSION} The new role applies at the member's next request. The account's last owner cannot be demoted (409).`,
  request: { params: MemberParams, body: { content: { "application/json": { schema: ChangeRoleBodySchema } }, required: true } },
  responses: {
    200: { description: "The member's role now", content: { "application/json": { schema: apiResponse(RoleChangedSchema, "MemberRoleChangedResponse") } } },
    404: error("No such member in the caller's account"),
    409: error("The account's last owner cannot be demoted, or support staff and customers would share the account (docs/team.md)"),
    ...accountErrorResponses,
  },
});

export function registerAccountMembersUpdate(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { user_id: userId } = c.req.valid("param");
    const { role } = c.req.valid("json");
    return apiOk(c, await changeMemberRole(c.env.db, { accountId: c.get("auth").accountId, userId, role, actor: await requestActor(c) }));
  });
}

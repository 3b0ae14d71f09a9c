// DELETE /api/v1/auth/account/members/{user_id} — remove a member (owner; extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { removeMember } from "../../accounts/members";
import { requestActor } from "../request-actor";
import { MemberParams, RemoveMemberQuery, RemovedMemberSchema, TEAM_EXTENSION, error } from "./account-members-schemas";

const route = createRoute({
  method: "delete",
  path: "/auth/account/members/{user_id}",
  operationId: "removeAccountMember",
  tags: ["Members"],
  summary: "Remove a member: their tokens and sessions in the account are refused from the next request, and the API keys they created are revoked unless kept (owner's JWT)",
  description: `${TEAM_EXTENSION} The live API keys they created are revoked with the removal, unless keep_keys=true keeps them working (listed for review). The account's last owner cannot be removed (409).`,
  request: { params: MemberParams, query: RemoveMemberQuery },
  responses: {
    200: { description: "Removed", content: { "application/json": { schema: apiResponse(RemovedMemberSchema, "RemovedMemberResponse") } } },
    404: error("No such member in the caller's account"),
    409: error("The account's last owner cannot be removed"),
    ...accountErrorResponses,
  },
});

export function registerAccountMembersRemove(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { user_id: userId } = c.req.valid("param");
    const { keep_keys: keepKeys } = c.req.valid("query");
    return apiOk(c, await removeMember(c.env.db, { accountId: c.get("auth").accountId, userId, actor: await requestActor(c), keepKeys }));
  });
}

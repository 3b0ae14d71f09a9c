// POST /api/v1/auth/account/members/{user_id}/two-factor/reset — an owner resets a member's two-factor sign-in (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { resetMemberTwoFactor } from "../../accounts/two-factor";
import { requestActor } from "../request-actor";
import { notFoundResponse } from "./alerts-schemas";
import { MemberResetSchema, MemberUserIdParam, TWO_FACTOR_EXTENSION, errorResponse, userCaller } from "./two-factor-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/account/members/{user_id}/two-factor/reset",
  operationId: "resetMemberTwoFactor",
  tags: ["Two-factor sign-in"],
  summary: "Reset a member's two-factor sign-in (a lost authenticator): it is off and they enrol again (JWT, owner of every account the member belongs to)",
  description: TWO_FACTOR_EXTENSION,
  request: { params: MemberUserIdParam },
  responses: {
    200: { description: "Reset", content: { "application/json": { schema: apiResponse(MemberResetSchema, "TwoFactorResetResponse") } } },
    403: errorResponse("Your own (turn it off with a code), or the member belongs to an account you do not own"),
    ...notFoundResponse,
    ...accountErrorResponses,
  },
});

export function registerTwoFactorReset(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { user_id: userId } = c.req.valid("param");
    const { userId: ownerId, accountId } = userCaller(c.get("auth"));
    return apiOk(c, await resetMemberTwoFactor(c.env.db, { accountId, ownerId, userId, actor: await requestActor(c) }));
  });
}

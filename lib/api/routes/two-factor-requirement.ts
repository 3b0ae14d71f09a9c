// GET and PUT /api/v1/auth/account/security — whether every member must use two-factor sign-in (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { getAccountSecurity, setRequireTwoFactor } from "../../accounts/two-factor";
import { requestActor } from "../request-actor";
import { AccountSecurityBodySchema, AccountSecuritySchema, TWO_FACTOR_EXTENSION, errorResponse, userCaller } from "./two-factor-schemas";

const getRoute = createRoute({
  method: "get",
  path: "/auth/account/security",
  operationId: "getAccountSecurity",
  tags: ["Two-factor sign-in"],
  summary: "Whether the account requires two-factor sign-in of every member, and how many have none yet (JWT)",
  description: TWO_FACTOR_EXTENSION,
  responses: {
    200: { description: "The account's requirement", content: { "application/json": { schema: apiResponse(AccountSecuritySchema, "AccountSecurityResponse") } } },
    ...accountErrorResponses,
  },
});

const putRoute = createRoute({
  method: "put",
  path: "/auth/account/security",
  operationId: "setAccountSecurity",
  tags: ["Two-factor sign-in"],
  summary: "Require (or stop requiring) two-factor sign-in of every member; members without it are sent to enrolment (JWT, owner who uses it)",
  description: TWO_FACTOR_EXTENSION,
  request: { body: { content: { "application/json": { schema: AccountSecurityBodySchema } }, required: true } },
  responses: {
    200: { description: "The requirement now", content: { "application/json": { schema: apiResponse(AccountSecuritySchema, "AccountSecurityUpdatedResponse") } } },
    409: errorResponse("The owner has no two-factor sign-in of their own"),
    ...accountErrorResponses,
  },
});

export function registerTwoFactorRequirement(app: ApiApp) {
  app.openapi(getRoute, async (c) => apiOk(c, await getAccountSecurity(c.env.db, c.get("auth").accountId)));
  app.openapi(putRoute, async (c) => {
    const { require_two_factor: require } = c.req.valid("json");
    const { userId: ownerId, accountId } = userCaller(c.get("auth"));
    return apiOk(c, await setRequireTwoFactor(c.env.db, { accountId, ownerId, require, actor: await requestActor(c) }));
  });
}

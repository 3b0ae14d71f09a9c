// DELETE /api/v1/auth/user/two-factor — turn two-factor sign-in off with a current code (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { disableTwoFactor } from "../../accounts/two-factor";
import { requestActor } from "../request-actor";
import { DisableBodySchema, DisabledSchema, TWO_FACTOR_EXTENSION, userCaller, wrongCodeResponses } from "./two-factor-schemas";

const route = createRoute({
  method: "delete",
  path: "/auth/user/two-factor",
  operationId: "disableTwoFactor",
  tags: ["Two-factor sign-in"],
  summary: "Turn two-factor sign-in off with a current code or a recovery code; the secret and recovery codes are deleted (JWT)",
  description: TWO_FACTOR_EXTENSION,
  request: { body: { content: { "application/json": { schema: DisableBodySchema } }, required: true } },
  responses: {
    200: { description: "Off", content: { "application/json": { schema: apiResponse(DisabledSchema, "TwoFactorDisabledResponse") } } },
    ...wrongCodeResponses,
    ...accountErrorResponses,
  },
});

export function registerTwoFactorDisable(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { code } = c.req.valid("json");
    return apiOk(c, await disableTwoFactor(c.env.db, { userId: userCaller(c.get("auth")).userId, code, actor: await requestActor(c) }));
  });
}

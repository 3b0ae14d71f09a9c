// POST /api/v1/auth/user/two-factor/confirm — confirm the enrolment with a code; recovery codes shown once (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { confirmEnrolment } from "../../accounts/two-factor";
import { requestActor } from "../request-actor";
import { ConfirmEnrolmentBodySchema, ConfirmedEnrolmentSchema, TWO_FACTOR_EXTENSION, userCaller, wrongCodeResponses } from "./two-factor-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/user/two-factor/confirm",
  operationId: "confirmTwoFactorEnrolment",
  tags: ["Two-factor sign-in"],
  summary: "Confirm the enrolment with the authenticator's current code: two-factor sign-in is on, and ten recovery codes are returned once (JWT)",
  description: TWO_FACTOR_EXTENSION,
  request: { body: { content: { "application/json": { schema: ConfirmEnrolmentBodySchema } }, required: true } },
  responses: {
    200: { description: "On, with the recovery codes", content: { "application/json": { schema: apiResponse(ConfirmedEnrolmentSchema, "TwoFactorEnabledResponse") } } },
    ...wrongCodeResponses,
    ...accountErrorResponses,
  },
});

export function registerTwoFactorConfirm(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { code } = c.req.valid("json");
    return apiOk(c, await confirmEnrolment(c.env.db, { userId: userCaller(c.get("auth")).userId, code, actor: await requestActor(c) }));
  });
}

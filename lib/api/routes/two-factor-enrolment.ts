// POST /api/v1/auth/user/two-factor/enrolment — start enrolling an authenticator (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { startEnrolment } from "../../accounts/two-factor";
import { EnrolmentSchema, StartEnrolmentBodySchema, TWO_FACTOR_EXTENSION, errorResponse, userCaller, wrongCodeResponses } from "./two-factor-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/user/two-factor/enrolment",
  operationId: "startTwoFactorEnrolment",
  tags: ["Two-factor sign-in"],
  summary: "Start enrolling a TOTP authenticator: a new secret, its otpauth URI and QR code; confirm it with a code (JWT, password again)",
  description: TWO_FACTOR_EXTENSION,
  request: { body: { content: { "application/json": { schema: StartEnrolmentBodySchema } }, required: true } },
  responses: {
    200: { description: "The secret to enrol (not yet in force)", content: { "application/json": { schema: apiResponse(EnrolmentSchema, "TwoFactorEnrolmentResponse") } } },
    403: errorResponse("Wrong password"),
    409: wrongCodeResponses[409],
    ...accountErrorResponses,
  },
});

export function registerTwoFactorEnrolment(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { password } = c.req.valid("json");
    return apiOk(c, await startEnrolment(c.env.db, { userId: userCaller(c.get("auth")).userId, password }));
  });
}

// GET /api/v1/auth/user/two-factor — the caller's two-factor sign-in (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { getTwoFactorStatus } from "../../accounts/two-factor";
import { TWO_FACTOR_EXTENSION, TwoFactorStatusSchema, userCaller } from "./two-factor-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/user/two-factor",
  operationId: "getTwoFactorStatus",
  tags: ["Two-factor sign-in"],
  summary: "Whether the caller signs in with a second factor, and whether the account requires it (JWT)",
  description: TWO_FACTOR_EXTENSION,
  responses: {
    200: { description: "The caller's two-factor sign-in", content: { "application/json": { schema: apiResponse(TwoFactorStatusSchema, "TwoFactorStatusResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerTwoFactorStatus(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, await getTwoFactorStatus(c.env.db, userCaller(c.get("auth")))));
}

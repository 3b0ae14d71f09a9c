// POST /api/v1/auth/verify-token — is the bearer JWT valid and unexpired?
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse, authErrorResponses } from "../../http/schemas";

export const TokenVerificationSchema = z
  .object({
    valid: z.literal(true),
    token_type: z.literal("Bearer"),
    user_id: z.string(),
    account_id: z.string(),
    role: z.string(),
    scope: z.string(),
    client_id: z.string().nullable(),
    issued_at: z.string(),
    expires_at: z.string(),
    expires_in: z.number().int(),
  })
  .openapi("TokenVerification");

const route = createRoute({
  method: "post",
  path: "/auth/verify-token",
  operationId: "verifyToken",
  tags: ["Auth"],
  summary: "Verify the bearer JWT access token",
  description: "The token is the request's `Authorization: Bearer` credential. An invalid, expired or revoked token is a 401.",
  responses: {
    200: { description: "Token is valid", content: { "application/json": { schema: apiResponse(TokenVerificationSchema, "TokenVerificationResponse") } } },
    ...authErrorResponses,
  },
});

export function registerVerifyToken(app: ApiApp) {
  app.openapi(route, (c) => {
    const auth = c.get("auth");
    if (auth.kind !== "jwt") throw new Error("unreachable: the access table admits user tokens only");
    const { claims } = auth;
    return apiOk(c, {
      valid: true as const,
      token_type: "Bearer" as const,
      user_id: claims.sub,
      account_id: claims.acct,
      role: claims.role,
      scope: claims.scope,
      client_id: claims.client_id ?? null,
      issued_at: new Date((claims.iat ?? 0) * 1000).toISOString(),
      expires_at: new Date(claims.exp * 1000).toISOString(),
      expires_in: Math.max(0, claims.exp - Math.floor(Date.now() / 1000)),
    });
  });
}

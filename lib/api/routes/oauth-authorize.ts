// GET /api/v1/oauth/authorize — the authorization endpoint of the code grant (RFC 6749 4.1.1, PKCE)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { oauthErrorResponse, oauthFormHook } from "../../http/oauth-errors";
import { publicUrl } from "../../env";
import { consentPagePath, validateAuthorizationRequest } from "../../oauth/authorize";
import { oauthErrorContent } from "./oauth-schemas";

export const AuthorizationRequestQuerySchema = z
  .object({
    response_type: z.string().optional().openapi({ example: "code" }),
    client_id: z.string().optional(),
    redirect_uri: z.string().optional().openapi({ description: "Exactly one of the client's registered redirect URIs" }),
    scope: z.string().optional().openapi({ example: "tools:read usage:read" }),
    state: z.string().optional(),
    code_challenge: z.string().optional().openapi({ description: "BASE64URL(SHA-256(code_verifier))" }),
    code_challenge_method: z.string().optional().openapi({ example: "S256" }),
    resource: z.string().optional().openapi({ description: "RFC 8707 resource indicator; defaults to this API" }),
  })
  .openapi("AuthorizationRequest");

const route = createRoute({
  method: "get",
  path: "/oauth/authorize",
  operationId: "authorize",
  tags: ["OAuth"],
  summary: "Authorization endpoint (code grant with PKCE S256)",
  description:
    "Validates the request and sends the browser to the dashboard's consent page; the signed-in dashboard session is the user's login. Approval redirects to `redirect_uri` with `code`, `state` and `iss` (RFC 9207); errors after the client and redirect URI are known are sent there too (`error`, `error_description`, `state`).",
  request: { query: AuthorizationRequestQuerySchema },
  responses: {
    302: { description: "To the consent page, or back to the client's redirect_uri with an error" },
    400: oauthErrorContent("Unknown client_id, or a redirect_uri that is missing or not registered (never redirected)"),
  },
});

export function registerOAuthAuthorize(app: ApiApp) {
  app.openapi(
    route,
    async (c) => {
      const query = c.req.valid("query");
      const check = await validateAuthorizationRequest(c.env.db, query);
      c.header("Cache-Control", "no-store");
      if (check.ok) return c.redirect(`${publicUrl()}${consentPagePath(query)}`, 302);
      if ("redirectTo" in check) return c.redirect(check.redirectTo, 302);
      return oauthErrorResponse(c, check.error);
    },
    oauthFormHook(),
  );
}

// POST /api/v1/oauth/token — the token endpoint: code + PKCE, refresh, device code, token exchange
import { createRoute } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import type { ApiApp } from "../../http/context";
import { oauthValidationError, rawInput, requireFormEncoded } from "../../http/oauth-errors";
import { exchangeAuthorizationCode } from "../../oauth/authorize";
import { authenticateClient } from "../../oauth/client-auth";
import { grantTypeNames } from "../../oauth/create-client";
import { pollDeviceCode } from "../../oauth/device";
import { oauthError } from "../../oauth/errors";
import { refreshTokens } from "../../oauth/refresh";
import { exchangeForDelegationToken } from "../../oauth/token-exchange";
import {
  OAuthAccessTokenResponseSchema,
  OAuthTokenExchangeResponseSchema,
  TOKEN_ARRAY_FIELDS,
  TokenRequestSchema,
  oauthErrorContent,
} from "./oauth-schemas";

const route = createRoute({
  method: "post",
  path: "/oauth/token",
  operationId: "requestToken",
  tags: ["OAuth"],
  summary: "Token endpoint: authorization_code (PKCE S256), refresh_token (rotating), device_code, token exchange (RFC 8693)",
  description:
    "Token exchange needs HTTP Basic authentication of a confidential Agent Runtime client; `subject_token`, `subject_token_type`, `resource` and `scope` are required together. The delegation token lives at most 600 s (never longer than the subject token) and never comes with a refresh token.",
  middleware: [requireFormEncoded()] as const,
  request: { body: { content: { "application/x-www-form-urlencoded": { schema: TokenRequestSchema } }, required: true } },
  responses: {
    200: {
      description: "Access-token response (code, refresh, device grants) or token-exchange response",
      content: { "application/json": { schema: OAuthAccessTokenResponseSchema.or(OAuthTokenExchangeResponseSchema) } },
    },
    400: oauthErrorContent(
      "invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, invalid_target; device grant: authorization_pending, slow_down, expired_token, access_denied",
    ),
    401: oauthErrorContent("invalid_client (WWW-Authenticate: Basic), or an invalid subject_token (WWW-Authenticate: Bearer)"),
    403: oauthErrorContent("insufficient_scope: the subject token does not grant the requested scope"),
    422: oauthErrorContent("A parameter outside the contract's bounds (code_verifier length, model, run_id, max_credits, tool_ids, provider_ids)"),
  },
});

const knownGrants = new Set<string>(Object.values(grantTypeNames));

function validationHook<T>(result: { success: true; data: T } | { success: false; error: ZodError }): undefined {
  if (result.success) return undefined;
  const raw = rawInput(result);
  const grant = raw.grant_type;
  if (grant === undefined || grant === "") throw oauthError("invalid_request", "grant_type is required");
  if (typeof grant !== "string") throw oauthError("invalid_request", "grant_type must not be repeated");
  if (!knownGrants.has(grant)) throw oauthError("unsupported_grant_type", `Unsupported grant_type ${grant}`);
  throw oauthValidationError(result.error, raw, TOKEN_ARRAY_FIELDS);
}

const list = (value: string | string[] | undefined) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

export function registerOAuthToken(app: ApiApp) {
  app.openapi(
    route,
    async (c) => {
      const db = c.env.db;
      const form = c.req.valid("form");
      const authorization = c.req.header("authorization");
      // RFC 6749 section 5.1: token responses must not be cached.
      c.header("Cache-Control", "no-store");
      c.header("Pragma", "no-cache");
      switch (form.grant_type) {
        case grantTypeNames.authorization_code: {
          const { client } = await authenticateClient(db, { authorization, clientId: form.client_id });
          const issued = await exchangeAuthorizationCode(db, { client, code: form.code, redirectUri: form.redirect_uri, codeVerifier: form.code_verifier });
          return c.json(issued.response, 200);
        }
        case grantTypeNames.refresh_token: {
          const { client } = await authenticateClient(db, { authorization, clientId: form.client_id });
          const issued = await refreshTokens(db, { client, refreshToken: form.refresh_token, scope: form.scope });
          return c.json(issued.response, 200);
        }
        case grantTypeNames.device_code: {
          const { client } = await authenticateClient(db, { authorization, clientId: form.client_id });
          const issued = await pollDeviceCode(db, { client, deviceCode: form.device_code });
          return c.json(issued.response, 200);
        }
        case grantTypeNames.token_exchange: {
          if (!authorization) throw oauthError("invalid_client", "Token exchange requires HTTP Basic authentication of an Agent Runtime client");
          const { client } = await authenticateClient(db, { authorization, clientId: form.client_id });
          const response = await exchangeForDelegationToken(db, {
            client,
            subjectToken: form.subject_token,
            subjectTokenType: form.subject_token_type,
            requestedTokenType: form.requested_token_type,
            resource: form.resource,
            scope: form.scope,
            model: form.model,
            runId: form.run_id,
            maxCredits: form.max_credits === undefined ? undefined : Number(form.max_credits),
            toolIds: list(form.tool_ids),
            providerIds: list(form.provider_ids),
          });
          return c.json(response, 200);
        }
      }
    },
    validationHook,
  );
}

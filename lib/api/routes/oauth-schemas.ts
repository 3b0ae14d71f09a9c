import { z } from "@hono/zod-openapi";
import { ACCESS_TOKEN_TYPE } from "../../oauth/token-exchange";
import { grantTypeNames } from "../../oauth/create-client";

/** Request and response shapes of the OAuth endpoints (contract 2.9, 4.6), written once. */

export const OAuthErrorResponseSchema = z
  .object({
    error: z.string().openapi({ example: "invalid_grant", description: "RFC 6749 section 5.2, RFC 8628 or RFC 6750 error code" }),
    error_description: z.string(),
  })
  .openapi("OAuthErrorResponse");

export const OAuthRateLimitResponseSchema = z
  .object({
    error: z.literal("rate_limited"),
    error_description: z.string(),
    retry_after: z.number().int().openapi({ description: "Seconds to wait, as in the Retry-After header" }),
  })
  .openapi("OAuthRateLimitResponse");

export const jsonContent = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

export const oauthErrorContent = (description: string) => jsonContent(OAuthErrorResponseSchema, description);

export const rateLimitHeaders = z.object({
  "X-RateLimit-Limit": z.string(),
  "X-RateLimit-Remaining": z.string(),
  "X-RateLimit-Reset": z.string().openapi({ description: "Unix epoch seconds at window reset" }),
});

/** Form fields arrive as strings: an absolute URI, checked where a URI is expected. */
const uri = (description: string) => z.string().refine((v) => URL.canParse(v), "must be an absolute URI").openapi({ format: "uri", description });

/** A form field that may be repeated; one occurrence arrives as a plain string. */
const repeatable = (description: string) =>
  z
    .union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(100, "at most 100 items")])
    .optional()
    .openapi({ description: `${description}; repeat the field for each value (at most 100)` });

// ---- Device authorization (RFC 8628 section 3.1) ----

export const DeviceAuthorizationRequestSchema = z
  .object({
    scope: z.string().openapi({ description: "Space-separated scopes", example: "tools:read tools:execute" }),
    resource: uri("RFC 8707 resource indicator (the token audience); defaults to this API").optional(),
    client_id: z.string().optional().openapi({ description: "Public clients; confidential clients use HTTP Basic" }),
  })
  .openapi("DeviceAuthorizationRequest");

export const DeviceAuthorizationResponseSchema = z
  .object({
    device_code: z.string(),
    user_code: z.string().openapi({ example: "BCDF-GHJK" }),
    verification_uri: z.string().openapi({ format: "uri" }),
    verification_uri_complete: z.string().openapi({ format: "uri" }),
    expires_in: z.number().int(),
    interval: z.number().int(),
  })
  .openapi("DeviceAuthorizationResponse");

// ---- Token endpoint (RFC 6749 section 4.1.3 and 6, RFC 8628 section 3.4, RFC 8693 section 2.1) ----

const clientId = z.string().optional().openapi({ description: "Public clients; confidential clients use HTTP Basic" });

export const AuthorizationCodeGrantSchema = z
  .object({
    grant_type: z.literal(grantTypeNames.authorization_code),
    code: z.string(),
    redirect_uri: uri("Exactly the redirect_uri of the authorization request"),
    code_verifier: z
      .string()
      .min(43, "must be at least 43 characters")
      .max(128, "must be at most 128 characters")
      .regex(/^[A-Za-z0-9._~-]+$/, "may contain only A-Z a-z 0-9 - . _ ~"),
    client_id: clientId,
  })
  .openapi("AuthorizationCodeGrantRequest");

export const RefreshTokenGrantSchema = z
  .object({
    grant_type: z.literal(grantTypeNames.refresh_token),
    refresh_token: z.string(),
    scope: z.string().optional().openapi({ description: "A subset of the granted scope" }),
    client_id: clientId,
  })
  .openapi("RefreshTokenGrantRequest");

export const DeviceCodeGrantSchema = z
  .object({
    grant_type: z.literal(grantTypeNames.device_code),
    device_code: z.string(),
    client_id: clientId,
  })
  .openapi("DeviceCodeGrantRequest");

/** Upper bound of max_credits: what the credits column holds (contract: integer >= 1). */
export const MAX_CREDITS_LIMIT = 1_000_000_000_000;

export const TokenExchangeGrantSchema = z
  .object({
    grant_type: z.literal(grantTypeNames.token_exchange),
    subject_token: z.string().openapi({ description: "The user's access token (JWT)" }),
    subject_token_type: z.string().openapi({ example: ACCESS_TOKEN_TYPE }),
    resource: uri("The delegation token's audience (RFC 8707)"),
    scope: z.string().openapi({ description: "Space-separated; must be granted by the subject token" }),
    requested_token_type: z.string().optional().openapi({ example: ACCESS_TOKEN_TYPE }),
    model: z.string().max(128).optional(),
    run_id: z.string().max(128).optional(),
    max_credits: z
      .string()
      .regex(/^\d+$/, "must be an integer")
      .refine((v) => Number(v) >= 1, "must be at least 1")
      .refine((v) => Number(v) <= MAX_CREDITS_LIMIT, `must be at most ${MAX_CREDITS_LIMIT}`)
      .optional()
      .openapi({ type: "integer", minimum: 1, description: "Cap on the credits charged under this token" }),
    tool_ids: repeatable("Tools this token may Call"),
    provider_ids: repeatable("Providers whose tools this token may Call"),
    client_id: clientId,
  })
  .openapi("TokenExchangeRequest");

export const TokenRequestSchema = z.discriminatedUnion("grant_type", [
  AuthorizationCodeGrantSchema,
  RefreshTokenGrantSchema,
  DeviceCodeGrantSchema,
  TokenExchangeGrantSchema,
]);
export type TokenRequest = z.infer<typeof TokenRequestSchema>;
export const TOKEN_ARRAY_FIELDS = ["tool_ids", "provider_ids"] as const;

export const OAuthAccessTokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    scope: z.string(),
    refresh_token: z.string().optional().openapi({ description: "For clients registered for the refresh_token grant; rotated on every use" }),
  })
  .openapi("OAuthAccessTokenResponse");

export const OAuthTokenExchangeResponseSchema = z
  .object({
    access_token: z.string().openapi({ description: "The delegation token (JWT, token_use=delegation)" }),
    issued_token_type: z.literal(ACCESS_TOKEN_TYPE),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().max(600),
    scope: z.string(),
  })
  .openapi("OAuthTokenExchangeResponse", { description: "Never carries a refresh_token" });

// ---- Introspection (RFC 7662) and revocation (RFC 7009) ----

export const IntrospectionRequestSchema = z
  .object({
    token: z.string(),
    resource: uri("Must equal the client's registered resource and the token's audience"),
    token_type_hint: z.string().optional(),
  })
  .openapi("IntrospectionRequest");

export const OAuthIntrospectionActiveResponseSchema = z
  .object({
    active: z.literal(true),
    scope: z.string(),
    client_id: z.string().optional(),
    token_type: z.literal("Bearer"),
    token_use: z.enum(["access", "delegation"]),
    sub: z.string(),
    account_id: z.string(),
    aud: z.union([z.string(), z.array(z.string())]),
    iss: z.string(),
    exp: z.number().int(),
    iat: z.number().int().optional(),
    jti: z.string(),
    model: z.string().optional(),
    run_id: z.string().optional(),
    max_credits: z.number().int().optional(),
    tool_ids: z.array(z.string()).optional(),
    provider_ids: z.array(z.string()).optional(),
  })
  .openapi("OAuthIntrospectionActiveResponse");

export const OAuthIntrospectionInactiveResponseSchema = z.object({ active: z.literal(false) }).strict().openapi("OAuthIntrospectionInactiveResponse");

export const RevocationRequestSchema = z
  .object({
    token: z.string(),
    token_type_hint: z.string().optional().openapi({ description: "access_token or refresh_token (a hint; every type is searched)" }),
    client_id: clientId,
  })
  .openapi("RevocationRequest");

export const EmptyObjectSchema = z.object({}).strict().openapi("OAuthRevocationResponse");

// ---- Metadata (RFC 8414) ----

export const AuthorizationServerMetadataSchema = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    device_authorization_endpoint: z.string(),
    introspection_endpoint: z.string(),
    revocation_endpoint: z.string(),
    jwks_uri: z.string(),
    scopes_supported: z.array(z.string()),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    introspection_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.boolean(),
    service_documentation: z.string(),
  })
  .openapi("AuthorizationServerMetadata");

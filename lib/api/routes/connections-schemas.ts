import { z } from "@hono/zod-openapi";
import { PublicApiErrorSchema } from "../../http/schemas";
import { connectionKinds, connectionStatuses } from "../../db/schema";

/** The connected-accounts operations' shapes (docs/connections.md), written once for the routes, the document and the dashboard. */
export const CONNECTIONS_EXTENSION =
  "Extension (not in the published contract): connected accounts, the credentials a user (or, shared, an account) holds at a third-party provider. Calls of tools that act as the user use them; without one a Call answers `oauth_signin_required`. Tokens are never returned.";

export const ConnectionSchema = z
  .object({
    connection_id: z.string(),
    provider_id: z.string(),
    provider_name: z.string(),
    kind: z.enum(connectionKinds).openapi({ description: "`oauth2`: made by signing in at the provider; `secret`: a pasted API key, token or user name and password" }),
    owner: z.enum(["user", "account"]).openapi({ description: "`user`: one member's own; `account`: shared with every member" }),
    user_id: z.string().nullable(),
    user_email: z.string().nullable(),
    scopes: z.array(z.string()).openapi({ description: "Scopes granted at the provider (OAuth)" }),
    status: z.enum(connectionStatuses).openapi({ description: "`active`; `needs_reauth`: the provider refused to renew it, connect again; `revoked`: disconnected" }),
    status_reason: z.string().nullable(),
    created_at: z.string(),
    last_used_at: z.string().nullable().openapi({ description: "The last Call that used it (to the minute)" }),
    last_refreshed_at: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: "When the current access token expires; it is refreshed before then" }),
  })
  .openapi("Connection");

export const ConnectableProviderSchema = z
  .object({
    provider_id: z.string(),
    name: z.string(),
    kind: z.enum(connectionKinds),
    format: z.enum(["token", "basic"]).nullable().openapi({ description: "For `secret` providers: one value, or a user name and password" }),
    label: z.string().nullable().openapi({ description: "What the pasted value is called at the provider" }),
    scopes: z.record(z.string(), z.string()).openapi({ description: "Scopes the provider offers, with their descriptions (OAuth)" }),
    ready: z.boolean().openapi({ description: "false: an OAuth provider the operator has not registered Tollgate with yet" }),
  })
  .openapi("ConnectableProvider");

export const ConnectionSharingSchema = z.enum(["owners", "members"]).openapi({ description: "Who may share a connection with the whole account" });

export const ConnectionListSchema = z
  .object({ connections: z.array(ConnectionSchema), sharing: ConnectionSharingSchema, providers: z.array(ConnectableProviderSchema) })
  .openapi("ConnectionList");

const SecretSchema = z
  .union([
    z.object({ value: z.string().min(1).max(8192) }).strict(),
    z.object({ username: z.string().min(1).max(1024), password: z.string().max(8192) }).strict(),
  ])
  .openapi({ description: "For `secret` providers: the value (`value`) or a user name and password; sealed in the vault, never shown again" });

export const CreateConnectionBodySchema = z
  .object({
    provider_id: z.string().min(1).max(100),
    shared: z.boolean().default(false).openapi({ description: "Share with the whole account (owners; members when an owner allows it)" }),
    scopes: z.array(z.string().min(1).max(200)).max(50).default([]).openapi({ description: "OAuth scopes to ask for, beside the provider's defaults" }),
    return_to: z.string().max(2000).optional().openapi({ description: "A dashboard path the browser returns to after the provider (default /connections)" }),
    secret: SecretSchema.optional(),
  })
  .strict()
  .openapi("CreateConnectionRequest");

export const CreatedConnectionSchema = z
  .union([
    z.object({
      kind: z.literal("oauth2"),
      authorization_url: z.string().openapi({ description: "Send the user's browser here; the provider returns to /api/v1/connections/callback" }),
      expires_at: z.string().openapi({ description: "The flow must complete by then (10 minutes)" }),
      scopes: z.array(z.string()),
    }),
    z.object({ kind: z.literal("secret"), connection: ConnectionSchema }),
  ])
  .openapi("CreatedConnection");

export const DisconnectedSchema = ConnectionSchema.extend({
  revoked_at_provider: z.boolean().openapi({ description: "The provider confirmed the revocation (RFC 7009); false when it has no revocation endpoint or could not be reached" }),
}).openapi("DisconnectedConnection");

export const ConnectionIdParam = z.object({ connection_id: z.string().min(1).max(100).openapi({ param: { name: "connection_id", in: "path" } }) });

const error = (description: string) => ({ description, content: { "application/json": { schema: PublicApiErrorSchema } } });
export const connectionErrorResponses = {
  403: error("The caller's role may not do this"),
  404: error("Unknown provider or connection in this account"),
  409: error("The operator has not registered Tollgate with the provider's OAuth server"),
  502: error("The provider's OpenID Connect discovery document could not be read"),
} as const;

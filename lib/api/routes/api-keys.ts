// GET, POST /api/v1/auth/api-keys and DELETE /api/v1/auth/api-keys/{api_key_id} — API key management (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { requireAuth } from "../../http/auth";
import { apiOk } from "../../http/responses";
import { PublicApiErrorSchema, accountErrorResponses, apiResponse, security } from "../../http/schemas";
import { createApiKey, listApiKeys, revokeApiKey } from "../../auth/api-keys";
import { notFound } from "../../errors";

const EXTENSION = "Extension (not in the published contract): used by the dashboard's API keys page.";

export const ApiKeySchema = z
  .object({
    api_key_id: z.string().uuid(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The key's first characters, to recognise it; the key itself is never shown again" }),
    last_used_at: z.string().nullable().openapi({ description: "ISO-8601; advisory, updated at most once a minute" }),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    credits_spent: z.number().openapi({ description: "Sum of settled_amount_credits of the usage events made with this key" }),
    usage_event_count: z.number().int().openapi({ description: "Usage events made with this key" }),
  })
  .openapi("ApiKey");

export const CreateApiKeyBodySchema = z
  .object({ name: z.string().trim().min(1).max(100).openapi({ description: "A label to recognise the key by" }) })
  .openapi("CreateApiKeyRequest");

export const CreatedApiKeySchema = z
  .object({
    api_key_id: z.string().uuid(),
    api_key: z.string().openapi({ description: "The secret key: returned only in this response; store it now" }),
    prefix: z.string(),
    name: z.string(),
    created_at: z.string(),
  })
  .openapi("CreatedApiKey");

export const RevokedApiKeySchema = z.object({ api_key_id: z.string(), revoked: z.literal(true) }).openapi("RevokedApiKey");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const list = createRoute({
  method: "get",
  path: "/auth/api-keys",
  tags: ["API keys"],
  summary: "List the account's API keys with the credits each has spent (JWT)",
  description: EXTENSION,
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  responses: {
    200: { description: "Keys, newest first", content: { "application/json": { schema: apiResponse(z.object({ items: z.array(ApiKeySchema) }), "ApiKeyListResponse") } } },
    ...accountErrorResponses,
  },
});

const create = createRoute({
  method: "post",
  path: "/auth/api-keys",
  tags: ["API keys"],
  summary: "Create an API key; the key is shown only in this response (JWT)",
  description: EXTENSION,
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: { body: { content: { "application/json": { schema: CreateApiKeyBodySchema } }, required: true } },
  responses: {
    200: { description: "The new key", content: { "application/json": { schema: apiResponse(CreatedApiKeySchema, "CreatedApiKeyResponse") } } },
    ...accountErrorResponses,
  },
});

const revoke = createRoute({
  method: "delete",
  path: "/auth/api-keys/{api_key_id}",
  tags: ["API keys"],
  summary: "Revoke one of the account's API keys (JWT)",
  description: `${EXTENSION} Revoking is idempotent; the key stops authenticating within seconds on every instance.`,
  security: security.jwt,
  middleware: [requireAuth("jwt")] as const,
  request: { params: z.object({ api_key_id: z.string().max(100) }) },
  responses: {
    200: { description: "Revoked", content: { "application/json": { schema: apiResponse(RevokedApiKeySchema, "RevokedApiKeyResponse") } } },
    404: { description: "No such key in the caller's account", content: { "application/json": { schema: PublicApiErrorSchema } } },
    ...accountErrorResponses,
  },
});

export function registerApiKeys(app: ApiApp) {
  app.openapi(list, async (c) => apiOk(c, { items: await listApiKeys(c.env.db, { accountId: c.get("auth").accountId }) }));

  app.openapi(create, async (c) => {
    const { name } = c.req.valid("json");
    return apiOk(c, await createApiKey(c.env.db, { accountId: c.get("auth").accountId, name }));
  });

  app.openapi(revoke, async (c) => {
    const { api_key_id: id } = c.req.valid("param");
    // Another account's key and a malformed id look the same to the caller: not found.
    if (!UUID.test(id)) throw notFound(`API key ${id} not found`);
    const result = await revokeApiKey(c.env.db, { id, accountId: c.get("auth").accountId });
    return apiOk(c, { api_key_id: result.api_key_id, revoked: true as const });
  });
}

import { z } from "@hono/zod-openapi";

/** The API key operations' shapes, written once: the routes validate and describe with them, the dashboard types with them. */
export const API_KEYS_EXTENSION = "Extension (not in the published contract): used by the dashboard's API keys page.";

export const ApiKeySchema = z
  .object({
    api_key_id: z.string().uuid(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The key's first characters, to recognise it; the key itself is never shown again" }),
    last_used_at: z.string().nullable().openapi({ description: "ISO-8601; advisory, updated at most once a minute" }),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    created_by: z.string().nullable().openapi({ description: "The user who created the key (null: the operator's CLI); the Playground replaces only its own user's key" }),
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

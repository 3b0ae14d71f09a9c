import type { z } from "zod";
import type { ApiKeySchema, CreatedApiKeySchema } from "../api/routes/api-keys-schemas";
import { apiData } from "./api-client";

/** `GET/POST/DELETE /api/v1/auth/api-keys` (JWT); types come from the API's own schemas. */
export type ApiKeyItem = z.infer<typeof ApiKeySchema>;
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;

export const apiKeysQueryKey = ["auth", "api-keys"] as const;

export async function fetchApiKeys(signal?: AbortSignal): Promise<ApiKeyItem[]> {
  return (await apiData<{ items: ApiKeyItem[] }>("/auth/api-keys", { signal })).items;
}

export function createApiKey(name: string): Promise<CreatedApiKey> {
  return apiData<CreatedApiKey>("/auth/api-keys", { method: "POST", body: { name } });
}

export function revokeApiKey(apiKeyId: string): Promise<{ api_key_id: string; revoked: true }> {
  return apiData("/auth/api-keys/" + encodeURIComponent(apiKeyId), { method: "DELETE" });
}

// DELETE /api/v1/auth/api-keys/{api_key_id} — revoke one of the account's API keys (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { PublicApiErrorSchema, accountErrorResponses, apiResponse } from "../../http/schemas";
import { revokeApiKey } from "../../auth/api-keys";
import { notFound } from "../../errors";
import { requestActor } from "../request-actor";
import { API_KEYS_EXTENSION, RevokedApiKeySchema } from "./api-keys-schemas";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const route = createRoute({
  method: "delete",
  path: "/auth/api-keys/{api_key_id}",
  operationId: "revokeApiKey",
  tags: ["API keys"],
  summary: "Revoke one of the account's API keys (JWT)",
  description: `${API_KEYS_EXTENSION} Revoking is idempotent; the key stops authenticating within seconds on every instance.`,
  request: { params: z.object({ api_key_id: z.string().max(100) }) },
  responses: {
    200: { description: "Revoked", content: { "application/json": { schema: apiResponse(RevokedApiKeySchema, "RevokedApiKeyResponse") } } },
    404: { description: "No such key in the caller's account", content: { "application/json": { schema: PublicApiErrorSchema } } },
    ...accountErrorResponses,
  },
});

export function registerApiKeysRevoke(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { api_key_id: id } = c.req.valid("param");
    // Another account's key and a malformed id look the same to the caller: not found.
    if (!UUID.test(id)) throw notFound(`API key ${id} not found`);
    const result = await revokeApiKey(c.env.db, { id, accountId: c.get("auth").accountId, actor: await requestActor(c) });
    return apiOk(c, { api_key_id: result.api_key_id, revoked: true as const });
  });
}

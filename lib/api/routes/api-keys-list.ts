// GET /api/v1/auth/api-keys — the account's API keys with the credits each has spent (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { listApiKeys } from "../../auth/api-keys";
import { API_KEYS_EXTENSION, ApiKeySchema } from "./api-keys-schemas";

const route = createRoute({
  method: "get",
  path: "/auth/api-keys",
  operationId: "listApiKeys",
  tags: ["API keys"],
  summary: "List the account's API keys with the credits each has spent (JWT)",
  description: API_KEYS_EXTENSION,
  responses: {
    200: { description: "Keys, newest first", content: { "application/json": { schema: apiResponse(z.object({ items: z.array(ApiKeySchema) }), "ApiKeyListResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerApiKeysList(app: ApiApp) {
  app.openapi(route, async (c) => apiOk(c, { items: await listApiKeys(c.env.db, { accountId: c.get("auth").accountId }) }));
}

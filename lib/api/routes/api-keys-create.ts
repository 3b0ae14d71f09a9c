// POST /api/v1/auth/api-keys — create an API key, shown only in this response (extension)
import { createRoute } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { accountErrorResponses, apiResponse } from "../../http/schemas";
import { createApiKey } from "../../auth/api-keys";
import { requestActor } from "../request-actor";
import { API_KEYS_EXTENSION, CreateApiKeyBodySchema, CreatedApiKeySchema } from "./api-keys-schemas";

const route = createRoute({
  method: "post",
  path: "/auth/api-keys",
  operationId: "createApiKey",
  tags: ["API keys"],
  summary: "Create an API key; the key is shown only in this response (JWT)",
  description: API_KEYS_EXTENSION,
  request: { body: { content: { "application/json": { schema: CreateApiKeyBodySchema } }, required: true } },
  responses: {
    200: { description: "The new key", content: { "application/json": { schema: apiResponse(CreatedApiKeySchema, "CreatedApiKeyResponse") } } },
    ...accountErrorResponses,
  },
});

export function registerApiKeysCreate(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { name } = c.req.valid("json");
    return apiOk(c, await createApiKey(c.env.db, { accountId: c.get("auth").accountId, name, actor: await requestActor(c) }));
  });
}

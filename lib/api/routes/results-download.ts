// GET /api/v1/results/{execution_id} — full content of a truncated result (signed, expiring URL)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { publicApiError } from "../../http/responses";
import { PublicApiErrorSchema } from "../../http/schemas";
import { openStoredResult } from "../../execution/result-store";

const route = createRoute({
  method: "get",
  path: "/results/{execution_id}",
  operationId: "downloadResult",
  tags: ["Call"],
  summary: "Download the full content of a truncated Call result",
  description: "The URL is returned as `full_content_file_url`; its signature is the authorisation. Use it as is.",
  request: {
    params: z.object({ execution_id: z.string() }),
    query: z.object({ expires: z.string(), sig: z.string() }),
  },
  responses: {
    200: { description: "The full JSON content", content: { "application/json": { schema: z.unknown() } } },
    403: { description: "Invalid or expired signature", content: { "application/json": { schema: PublicApiErrorSchema } } },
    404: { description: "Content no longer stored", content: { "application/json": { schema: PublicApiErrorSchema } } },
  },
});

export function registerResultsDownload(app: ApiApp) {
  app.openapi(route, async (c) => {
    const { execution_id } = c.req.valid("param");
    const { expires, sig } = c.req.valid("query");
    const access = await openStoredResult(c.env.db, execution_id, expires, sig);
    if (!access.ok) {
      if (access.reason === "not_found") return publicApiError(c, 404, "The result content is no longer stored");
      return publicApiError(c, 403, access.reason === "expired" ? "This download URL has expired" : "Invalid download URL signature");
    }
    return c.body(access.content, 200, { "Content-Type": "application/json", "Cache-Control": "private, no-store" }) as never;
  });
}

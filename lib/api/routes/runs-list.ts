// GET /api/v1/auth/runs — the account's agent runs with their delegation caps and spend (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { accountId } from "../../audit/query-schemas";
import { RunListSchema } from "../../audit/run-schemas";
import { listRuns } from "../../audit/runs";
import { EXTENSION, auditErrorResponses, auditRead } from "../audit-route-support";

const Query = z.object({
  run_id: z.string().min(1).max(128).optional().openapi({ description: "Only this run (a delegation token's run_id): one item, or none" }),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "1 to 100, default 20" }),
  account_id: accountId,
});

const route = createRoute({
  method: "get",
  path: "/auth/runs",
  operationId: "listRuns",
  tags: ["Usage audit"],
  summary: "The account's agent runs, newest first, with each run's delegation cap and spend (JWT)",
  description:
    `${EXTENSION} An agent run is what an Agent Runtime's delegation tokens and their requests share: the token exchange's \`run_id\`. ` +
    "Each run says when it started and last acted, its events, Calls and settled credits, and its tokens with their `max_credits` and what was spent under each.",
  request: { query: Query },
  responses: {
    200: { description: "A page of runs", content: { "application/json": { schema: apiResponse(RunListSchema, "RunListResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerRunsList(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const data = await auditRead(c, { accountId: q.account_id }, (target) => listRuns(c.env.db, target, { runId: q.run_id, page: q.page, pageSize: q.page_size }));
    return apiOk(c, data);
  });
}

// GET /api/v1/auth/review-queue — support's queue of failed but charged Calls across accounts (extension)
import { createRoute, z } from "@hono/zod-openapi";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { reviewQueue } from "../../audit/review-queue";
import { EXTENSION, auditErrorResponses, logCrossAccountRead } from "../audit-route-support";

const ReviewCaseSchema = z
  .object({
    usage_event_id: z.string(),
    execution_id: z.string(),
    account_id: z.string(),
    account_name: z.string(),
    tool_id: z.string().nullable(),
    tool_name: z.string().nullable().openapi({ description: "The tool's name in the catalog (null when it is no longer there)" }),
    created_at: z.string().openapi({ description: "ISO-8601: when the Call was made" }),
    reason_code: z.string().nullable(),
    error_message: z.string().nullable(),
    charged_credits: z.number(),
    refunded_credits: z.number(),
    open_credits: z.number().openapi({ description: "What a refund can still give back: charged less refunded" }),
  })
  .openapi("ReviewCase");

const Query = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50).openapi({ description: "1-100, default 50" }),
  skip: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

const route = createRoute({
  method: "get",
  path: "/auth/review-queue",
  operationId: "listReviewQueue",
  tags: ["Usage audit"],
  summary: "Failed but charged Calls awaiting review, across accounts, oldest first (support; JWT)",
  description:
    `${EXTENSION} Every \`failed_charged_review\` Call not yet refunded in full, in every account, oldest first, with the account's name, ` +
    "the amount still open and the reason. Support users only; each read is recorded in the support access log (no target account: it spans them).",
  request: { query: Query },
  responses: {
    200: {
      description: "The queue",
      content: { "application/json": { schema: apiResponse(z.object({ items: z.array(ReviewCaseSchema), total: z.number().int(), skip: z.number().int(), limit: z.number().int() }), "ReviewQueueResponse") } },
    },
    ...auditErrorResponses,
  },
});

export function registerReviewQueue(app: ApiApp) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const queue = await reviewQueue(c.env.db, { limit: q.limit, offset: q.skip });
    await logCrossAccountRead(c);
    return apiOk(c, { ...queue, skip: q.skip, limit: q.limit });
  });
}

// GET /api/v1/health — readiness for load balancers: 200 while the database answers, else 503
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { ApiApp } from "../../http/context";
import { publicApiError } from "../../http/responses";
import { PublicApiErrorSchema } from "../../http/schemas";

export const HealthResponseSchema = z.object({ status: z.literal("ok"), database: z.literal("ok") }).openapi("HealthResponse");

/** A database that takes longer than this to answer `select 1` is reported unavailable. */
const DATABASE_TIMEOUT_MS = 2_000;

const route = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Metadata"],
  summary: "Readiness: the instance and its database answer",
  description: "An extension of the contract for load balancers and orchestrators (docs/deployment.md). Not rate-limited, no authentication.",
  responses: {
    200: { description: "Ready", content: { "application/json": { schema: HealthResponseSchema } } },
    503: { description: "The database does not answer", content: { "application/json": { schema: PublicApiErrorSchema } } },
  },
});

export function registerHealth(app: ApiApp) {
  app.openapi(route, async (c) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), DATABASE_TIMEOUT_MS);
    });
    try {
      await Promise.race([c.env.db.execute(sql`select 1`), timeout]);
      return c.json({ status: "ok" as const, database: "ok" as const }, 200);
    } catch {
      c.header("Retry-After", "1");
      return publicApiError(c, 503, "The database does not answer");
    } finally {
      clearTimeout(timer);
    }
  });
}

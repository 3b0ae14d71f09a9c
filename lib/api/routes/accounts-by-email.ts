// GET /api/v1/auth/accounts?email= — the accounts a person belongs to, for support (extension)
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { ApiApp } from "../../http/context";
import { apiOk } from "../../http/responses";
import { apiResponse } from "../../http/schemas";
import { rows } from "../../db/row-sql";
import { userRoles } from "../../vocab/roles";
import { EXTENSION, auditErrorResponses, logCrossAccountRead } from "../audit-route-support";

const Query = z.object({
  email: z.string().trim().min(3).max(320).openapi({ description: "A member's email address (case does not matter)" }),
});

const AccountOfMemberSchema = z
  .object({
    account_id: z.string(),
    name: z.string(),
    role: z.enum(userRoles).openapi({ description: "The person's role in that account" }),
  })
  .openapi("AccountOfMember");

const route = createRoute({
  method: "get",
  path: "/auth/accounts",
  operationId: "findAccountsByEmail",
  tags: ["Members"],
  summary: "The accounts a person belongs to, by their email (support; JWT)",
  description:
    `${EXTENSION} How support finds a customer who writes in by email: each account the user with that address is a member of, with their role. ` +
    "Support users only; each read is recorded in the support access log (no target account). An unknown address answers an empty list.",
  request: { query: Query },
  responses: {
    200: { description: "The accounts", content: { "application/json": { schema: apiResponse(z.object({ email: z.string(), items: z.array(AccountOfMemberSchema) }), "AccountsByEmailResponse") } } },
    ...auditErrorResponses,
  },
});

export function registerAccountsByEmail(app: ApiApp) {
  app.openapi(route, async (c) => {
    const email = c.req.valid("query").email.toLowerCase();
    const items = rows<{ account_id: string; name: string; role: (typeof userRoles)[number] }>(
      await c.env.db.execute(sql`
        SELECT a.id AS account_id, a.name, m.role FROM users u
          JOIN account_members m ON m.user_id = u.id JOIN accounts a ON a.id = m.account_id
         WHERE u.email = ${email} ORDER BY m.created_at, a.id`),
    );
    await logCrossAccountRead(c);
    return apiOk(c, { email, items });
  });
}

import type { Context } from "hono";
import type { ApiEnv } from "../http/context";
import { PublicApiErrorSchema, accountErrorResponses } from "../http/schemas";
import { type AccessRequest, insertSupportAccess, resolveAuditAccount } from "../audit/access";
import { clientIp } from "../http/rate-limit";

/** Error responses of every audit operation (the 2.8 shapes, plus 403/404 of the account rules). */
export const auditErrorResponses = {
  ...accountErrorResponses,
  403: { description: "account_id names another account and the caller is not a support user", content: { "application/json": { schema: PublicApiErrorSchema } } },
  404: { description: "Not found in the account (another account's id is not found either)", content: { "application/json": { schema: PublicApiErrorSchema } } },
} as const;

/**
 * Runs an audit read on the account it is about (the caller's own, or a support user's target).
 * A support user's cross-account read is logged after `read` succeeded (validation included) and
 * before its data is returned, so a rejected query leaves no row and no data leaves without one.
 */
export async function auditRead<T>(c: Context<ApiEnv>, req: Omit<AccessRequest, "resource" | "query" | "from">, read: (accountId: string) => Promise<T>): Promise<T> {
  const from = { ipAddress: clientIp(c), userAgent: c.req.header("user-agent") ?? null };
  const target = await resolveAuditAccount(c.env.db, c.get("auth"), { ...req, ...accessRecord(c), from });
  const data = await read(target.accountId);
  await target.logAccess?.();
  return data;
}

/**
 * A support read that spans accounts (the review queue, accounts by email): one support access-log
 * row with no target account, written before the data is returned.
 */
export async function logCrossAccountRead(c: Context<ApiEnv>): Promise<void> {
  const auth = c.get("auth");
  if (auth.kind !== "jwt") return;
  const { resource, query } = accessRecord(c);
  await insertSupportAccess(c.env.db, auth.userId, null, resource, query);
}

/** What the support access log records of a request: the route template, and its path and query parameters. */
export function accessRecord(c: Context<ApiEnv>): { resource: string; query: Record<string, unknown> } {
  return { resource: `${c.req.method} ${c.req.routePath.replace(/^\/api\/v1/, "")}`, query: { ...c.req.param(), ...c.req.query() } };
}

export function csvHeaders(name: string): Record<string, string> {
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "");
  return {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${name}-${stamp}Z.csv"`,
    "Cache-Control": "private, no-store",
  };
}

export const EXTENSION = "Extension (not in the published contract).";

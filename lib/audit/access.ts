import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { forbidden, invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import type { AuthContext } from "../auth/auth-context";
import { type IdKind, accountsHoldingId } from "./id-sources";
import { recordActivity } from "../accounts/activity";

/**
 * Which account an audit read is about. Every read is confined to the caller's account, except
 * for users with role `support`:
 * - `account_id=<acc_…>` names the account to read (any audit endpoint);
 * - without it, a support user's read by `execution_id` / `search_id` filter, or of one event,
 *   ledger row or lookup id, is answered from the account that owns that id.
 * A read that leaves the support user's own account is recorded in `support_access_log` (user,
 * target account, resource, the query) once it has succeeded and before its data is sent: the
 * log lists what support was shown, not queries that were rejected. Other users passing another
 * account's id get 403.
 */
export interface AccessRequest {
  /** e.g. `GET /auth/usage/history/v2`. */
  resource: string;
  /** The request's parameters, recorded in the access log. */
  query: Record<string, unknown>;
  /** The `account_id` query parameter. */
  accountId?: string;
  /** For support users without `account_id`: the owner(s) of the id being read, if any. */
  owners?: () => Promise<string[]>;
  /** Where the request came from, for the target account's activity log. */
  from?: { ipAddress?: string | null; userAgent?: string | null };
}

export interface AuditTarget {
  accountId: string;
  /** Set when the read leaves the caller's account: writes its access-log row. */
  logAccess: (() => Promise<void>) | null;
}

export async function resolveAuditAccount(db: Db, auth: AuthContext, req: AccessRequest): Promise<AuditTarget> {
  if (auth.kind !== "jwt") throw forbidden("The audit endpoints accept JWT access tokens only");
  const own = auth.accountId;
  const target = (accountId: string): AuditTarget => ({ accountId, logAccess: () => logSupportAccess(db, auth.userId, accountId, req) });
  if (req.accountId !== undefined && req.accountId !== own) {
    if (auth.role !== "support") throw forbidden("account_id is available to support users only; omit it to read your own account");
    const exists = rows<{ id: string }>(await db.execute(sql`SELECT id FROM accounts WHERE id = ${req.accountId}`));
    if (exists.length === 0) throw notFound(`Account ${req.accountId} not found`);
    return target(req.accountId);
  }
  if (req.accountId === undefined && auth.role === "support" && req.owners) {
    const owners = await req.owners();
    if (owners.length > 1) throw invalidInput("This id exists in several accounts: pass account_id to choose one");
    if (owners.length === 1 && owners[0] !== own) return target(owners[0]);
  }
  return { accountId: own, logAccess: null };
}

/** One support access-log row; `target` null for a read that spans accounts (the review queue, accounts by email). */
export async function insertSupportAccess(db: Db, userId: string, target: string | null, resource: string, query: Record<string, unknown>): Promise<void> {
  await db.execute(sql`
    INSERT INTO support_access_log (id, user_id, target_account_id, resource, query)
    VALUES (${newId("sal")}, ${userId}, ${target}, ${resource}, ${JSON.stringify(query)}::jsonb)`);
}

/** The support access-log row and, in the same transaction, `support.accessed` in the target account's activity log. */
async function logSupportAccess(db: Db, userId: string, target: string, req: AccessRequest): Promise<void> {
  await db.transaction(async (t) => {
    const tx = t as unknown as Db;
    await insertSupportAccess(tx, userId, target, req.resource, req.query);
    const email = rows<{ email: string }>(await tx.execute(sql`SELECT email FROM users WHERE id = ${userId}`))[0]?.email ?? null;
    await recordActivity(
      tx,
      target,
      { type: "support", id: userId, label: email, ipAddress: req.from?.ipAddress ?? null, userAgent: req.from?.userAgent ?? null },
      { action: "support.accessed", objectType: "account", objectId: target, after: { resource: req.resource, query: req.query } },
    );
  });
}

const holding = (db: Db, id: string, kinds: readonly IdKind[]) => () => accountsHoldingId(db, id, kinds);

/** Owners of the ids a usage filter focuses on (`execution_id`, else `search_id`). */
export function ownersOfFocus(db: Db, focus: { executionId?: string; searchId?: string }): (() => Promise<string[]>) | undefined {
  if (focus.executionId) return holding(db, focus.executionId, ["execution_id"]);
  if (focus.searchId) return holding(db, focus.searchId, ["search_id"]);
  return undefined;
}

export const ownersOfEvent = (db: Db, id: string) => holding(db, id, ["usage_event_id"]);

export const ownersOfLedgerEntry = (db: Db, id: string) => holding(db, id, ["ledger_entry_id"]);

/** Owners of any id the lookup accepts: the same sources, in the same order, as `lookupId`. */
export const ownersOfAnyId = (db: Db, id: string) => () => accountsHoldingId(db, id);

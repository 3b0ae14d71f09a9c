import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { forbidden, invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import type { AuthContext } from "../http/context";

/**
 * Which account an audit read is about. Every read is confined to the caller's account, except
 * for users with role `support`:
 * - `account_id=<acc_…>` names the account to read (any audit endpoint);
 * - without it, a support user's read by `execution_id` / `search_id` filter, or of one event,
 *   ledger row or lookup id, is answered from the account that owns that id.
 * Every read that leaves the support user's own account is first written to
 * `support_access_log` (user, target account, resource, the query). Other users passing another
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
}

export async function resolveAuditAccount(db: Db, auth: AuthContext, req: AccessRequest): Promise<string> {
  if (auth.kind !== "jwt") throw forbidden("The audit endpoints accept JWT access tokens only");
  const own = auth.accountId;
  if (req.accountId !== undefined && req.accountId !== own) {
    if (auth.role !== "support") throw forbidden("account_id is available to support users only; omit it to read your own account");
    const exists = rows<{ id: string }>(await db.execute(sql`SELECT id FROM accounts WHERE id = ${req.accountId}`));
    if (exists.length === 0) throw notFound(`Account ${req.accountId} not found`);
    await logSupportAccess(db, auth.userId, req.accountId, req);
    return req.accountId;
  }
  if (req.accountId === undefined && auth.role === "support" && req.owners) {
    const owners = await req.owners();
    if (owners.length > 1) throw invalidInput("This id exists in several accounts: pass account_id to choose one");
    if (owners.length === 1 && owners[0] !== own) {
      await logSupportAccess(db, auth.userId, owners[0], req);
      return owners[0];
    }
  }
  return own;
}

async function logSupportAccess(db: Db, userId: string, target: string, req: AccessRequest): Promise<void> {
  await db.execute(sql`
    INSERT INTO support_access_log (id, user_id, target_account_id, resource, query)
    VALUES (${newId("sal")}, ${userId}, ${target}, ${req.resource}, ${JSON.stringify(req.query)}::jsonb)`);
}

const distinctAccounts = async (db: Db, query: ReturnType<typeof sql>) => rows<{ account_id: string }>(await db.execute(query)).map((r) => r.account_id);

/** Owners of the ids a usage filter focuses on (`execution_id`, `search_id`). */
export function ownersOfFocus(db: Db, focus: { executionId?: string; searchId?: string }): (() => Promise<string[]>) | undefined {
  if (focus.executionId) {
    const id = focus.executionId;
    return () => distinctAccounts(db, sql`SELECT DISTINCT account_id FROM (SELECT account_id FROM executions WHERE id = ${id}
                                              UNION ALL SELECT account_id FROM usage_events WHERE execution_id = ${id}) x LIMIT 2`);
  }
  if (focus.searchId) {
    const id = focus.searchId;
    return () => distinctAccounts(db, sql`SELECT DISTINCT account_id FROM (SELECT account_id FROM searches WHERE id = ${id}
                                              UNION ALL SELECT account_id FROM usage_events WHERE search_id = ${id}) x LIMIT 2`);
  }
  return undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const ownersOfEvent = (db: Db, id: string) => () =>
  UUID.test(id) ? distinctAccounts(db, sql`SELECT account_id FROM usage_events WHERE id = ${id}::uuid`) : Promise.resolve([]);

export const ownersOfLedgerEntry = (db: Db, id: string) => () => distinctAccounts(db, sql`SELECT account_id FROM credits_ledger WHERE id = ${id}`);

/** Owners of any id the lookup accepts (execution, search, event, ledger entry, session). */
export const ownersOfAnyId = (db: Db, id: string) => () =>
  distinctAccounts(
    db,
    sql`SELECT DISTINCT account_id FROM (
          SELECT account_id FROM executions WHERE id = ${id}
          UNION ALL SELECT account_id FROM searches WHERE id = ${id}
          UNION ALL SELECT account_id FROM credits_ledger WHERE id = ${id}
          UNION ALL SELECT account_id FROM usage_events WHERE execution_id = ${id}
          UNION ALL SELECT account_id FROM usage_events WHERE session_id = ${id}
          ${UUID.test(id) ? sql`UNION ALL SELECT account_id FROM usage_events WHERE id = ${id}::uuid` : sql``}
        ) x LIMIT 2`,
  );

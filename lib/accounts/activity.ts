import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { newId } from "../ids";
import type { ActivityAction, ActorType } from "../vocab/activity";

/**
 * The account activity log (issue 43): who changed what in an account, when, from where. Every
 * writer records its entry with `recordActivity` inside the transaction of the change, so the
 * change and its entry commit together or not at all. Entries are append-only (trigger), numbered
 * per account without gaps, and hash-chained (`hash` = SHA-256 of the previous hash and the
 * entry's content), which `audit verify` re-computes.
 */

export { actorTypes, activityActions, type ActorType, type ActivityAction } from "../vocab/activity";

/** Who acted: a dashboard user (or their API token), an API key, the operator's CLI, a support user, or Tollgate itself. */
export interface Actor {
  type: ActorType;
  id?: string | null;
  /** A readable name kept with the entry (an email, a key's name), so the log reads the same after the actor is gone. */
  label?: string | null;
  ipAddress?: string | null;
  userAgent?: string | null;
}

export const OPERATOR: Actor = { type: "operator", label: "operator CLI" };
export const SYSTEM: Actor = { type: "system", label: "Tollgate" };

export interface ActivityInput {
  action: ActivityAction;
  objectType?: string | null;
  objectId?: string | null;
  before?: unknown;
  after?: unknown;
}

/**
 * The text an entry's hash covers, from its columns (alias `t`): the same expression when writing
 * and when verifying. jsonb's text form is canonical (keys sorted), and the time is written in UTC.
 */
export function activityContent(t: string): SQL {
  const c = (name: string) => sql.raw(`${t}.${name}`);
  return sql`jsonb_build_array(${c("account_id")}, ${c("seq")}, ${c("id")},
      to_char(${c("created_at")} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), ${c("actor_type")}, ${c("actor_id")}, ${c("actor_label")},
      ${c("action")}, ${c("object_type")}, ${c("object_id")}, ${c("before")}, ${c("after")}, ${c("ip_address")}, ${c("user_agent")})::text`;
}

/** The chained hash of an entry whose content is `content` after an entry hashed `prev` (null: the first). */
export function chainedHash(prev: SQL, content: SQL): SQL {
  return sql`encode(sha256(convert_to(coalesce(${prev}, '') || '|' || ${content}, 'UTF8')), 'hex')`;
}

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * Appends an entry to the account's log. Call it with the transaction that makes the change; it
 * takes the account's log lock (a savepoint when nested), so concurrent writers number their
 * entries one after another.
 */
export async function recordActivity(db: Db, accountId: string, actor: Actor, input: ActivityInput): Promise<{ id: string; seq: number }> {
  const id = newId("act");
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`tollgate.activity:${accountId}`}, 0))`);
    const result = await tx.execute(sql`
      INSERT INTO account_activity (account_id, seq, id, created_at, actor_type, actor_id, actor_label, action, object_type, object_id,
                                    before, after, ip_address, user_agent, prev_hash, hash)
      SELECT n.account_id, n.seq, n.id, n.created_at, n.actor_type, n.actor_id, n.actor_label, n.action, n.object_type, n.object_id,
             n.before, n.after, n.ip_address, n.user_agent, last.hash, ${chainedHash(sql`last.hash`, activityContent("n"))}
        FROM (SELECT ${accountId}::text AS account_id,
                     coalesce((SELECT max(seq) FROM account_activity WHERE account_id = ${accountId}), 0) + 1 AS seq,
                     ${id}::text AS id, now() AS created_at, ${actor.type}::text AS actor_type, ${actor.id ?? null}::text AS actor_id,
                     ${actor.label ?? null}::text AS actor_label, ${input.action}::text AS action, ${input.objectType ?? null}::text AS object_type,
                     ${input.objectId ?? null}::text AS object_id, ${json(input.before)}::jsonb AS before, ${json(input.after)}::jsonb AS after,
                     ${actor.ipAddress ?? null}::text AS ip_address, ${actor.userAgent?.slice(0, 512) ?? null}::text AS user_agent) n
        LEFT JOIN LATERAL (SELECT hash FROM account_activity WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT 1) last ON true
      RETURNING seq`);
    return { id, seq: Number(rows<{ seq: number | string }>(result)[0].seq) };
  });
}

/** The same entry in each of several accounts (what concerns a user concerns every account they belong to). */
export async function recordInAccounts(db: Db, accountIds: readonly string[], actor: Actor, input: ActivityInput): Promise<void> {
  for (const accountId of accountIds) await recordActivity(db, accountId, actor, input);
}

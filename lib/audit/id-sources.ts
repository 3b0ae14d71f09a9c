import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import type { Lookup } from "./schemas";

export type IdKind = Lookup["resolved_as"];

interface IdSource {
  kind: IdKind;
  table: "usage_events" | "executions" | "searches" | "credits_ledger";
  column: string;
  /** The column is a uuid: only a UUID-shaped id can be there (and casting anything else would fail). */
  uuid?: boolean;
  /** The rows this source is indexed for (a partial index); the others are found through another source. */
  where?: string;
}

/**
 * Every place an id of the audit can live, in the order the lookup tries them (each column is
 * indexed). The lookup resolves an id within one account and a support user's read finds the
 * account owning it from this same list, so an id one can resolve the other can too.
 */
export const ID_SOURCES: readonly IdSource[] = [
  { kind: "usage_event_id", table: "usage_events", column: "id", uuid: true },
  { kind: "execution_id", table: "executions", column: "id" },
  { kind: "execution_id", table: "usage_events", column: "execution_id" },
  { kind: "search_id", table: "searches", column: "id" },
  { kind: "search_id", table: "usage_events", column: "search_id" },
  { kind: "ledger_entry_id", table: "credits_ledger", column: "id" },
  // Only executions in flight: a settled or released one is found by its usage event's session_id.
  { kind: "session_id", table: "executions", column: "session_id", where: "status = 'reserved'" },
  { kind: "session_id", table: "searches", column: "session_id" },
  { kind: "session_id", table: "usage_events", column: "session_id" },
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One SELECT per source (of the given kinds) that can hold `id`, with its rank in ID_SOURCES. */
function probes(id: string, kinds: readonly IdKind[], body: (source: IdSource, rank: number, match: SQL) => SQL): SQL | null {
  const selects = ID_SOURCES.flatMap((s, rank) => {
    if (!kinds.includes(s.kind) || (s.uuid && !UUID.test(id))) return [];
    const match = sql`${sql.raw(`${s.table}.${s.column}`)} = ${id}${sql.raw(s.uuid ? "::uuid" : "")}${sql.raw(s.where ? ` AND ${s.table}.${s.where}` : "")}`;
    return [sql`(${body(s, rank, match)})`];
  });
  return selects.length === 0 ? null : sql.join(selects, sql` UNION ALL `);
}

const ALL_KINDS: readonly IdKind[] = [...new Set(ID_SOURCES.map((s) => s.kind))];

/** What `id` is within the account: the kind of the first source holding it, or null. */
export async function idKindInAccount(db: Db, accountId: string, id: string): Promise<IdKind | null> {
  const union = probes(id, ALL_KINDS, (s, rank, match) => sql`SELECT ${rank}::int AS rank FROM ${sql.raw(s.table)} WHERE ${match} AND account_id = ${accountId} LIMIT 1`);
  if (!union) return null;
  const first = rows<{ rank: number }>(await db.execute(sql`SELECT rank FROM (${union}) x ORDER BY rank LIMIT 1`))[0];
  return first ? ID_SOURCES[first.rank].kind : null;
}

/**
 * The accounts holding `id` as one of `kinds`, across all accounts (for a support user's read by
 * id). At most two are returned: more than one already means the caller must choose.
 */
export async function accountsHoldingId(db: Db, id: string, kinds: readonly IdKind[] = ALL_KINDS): Promise<string[]> {
  const union = probes(id, kinds, (s, _rank, match) => sql`SELECT DISTINCT account_id FROM ${sql.raw(s.table)} WHERE ${match}`);
  if (!union) return [];
  return rows<{ account_id: string }>(await db.execute(sql`SELECT DISTINCT account_id FROM (${union}) x LIMIT 2`)).map((r) => r.account_id);
}

import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { invalidInput } from "../errors";
import { decodeCursor, encodeCursor } from "../audit/cursor";
import { parseDateParam, resolveTimeZone } from "../audit/time-window";
import { type Cell, keysetCsvStream } from "../audit/csv";
import type { ActivityAction, ActorType } from "../vocab/activity";

/**
 * Reading the account activity log: newest first, filtered, paged by a keyset cursor on the
 * entry's number (`seq`, gap-free per account), so entries written meanwhile never shift a page.
 */

export interface ActivityFilters {
  startDate?: string;
  endDate?: string;
  /** IANA zone of date-only and offset-less dates (default UTC). */
  tz?: string;
  action?: ActivityAction;
  actorType?: ActorType;
  actorId?: string;
  objectType?: string;
  objectId?: string;
}

export interface ActivityEntry {
  activity_id: string;
  seq: number;
  created_at: string;
  actor_type: ActorType;
  actor_id: string | null;
  actor_label: string | null;
  action: ActivityAction;
  object_type: string | null;
  object_id: string | null;
  before: unknown;
  after: unknown;
  ip_address: string | null;
  user_agent: string | null;
}

const SEQ_KEY = /^\d{1,18}$/;
const ACTIVITY_ID = /^act_[0-9a-z]{26}$/;

/** A date parameter as a condition on `created_at`; a date-only end covers that whole day (in `tz`). */
function bound(name: "start_date" | "end_date", raw: string | undefined, tz: string): SQL | null {
  const parsed = parseDateParam(name, raw);
  if (!parsed) return null;
  const start = name === "start_date";
  if (parsed.kind === "date") {
    return start ? sql`a.created_at >= (${parsed.value}::date::timestamp AT TIME ZONE ${tz})` : sql`a.created_at < ((${parsed.value}::date + 1)::timestamp AT TIME ZONE ${tz})`;
  }
  const at = parsed.kind === "instant" ? sql`${parsed.value}::timestamptz` : sql`(${parsed.value}::timestamp AT TIME ZONE ${tz})`;
  return start ? sql`a.created_at >= ${at}` : sql`a.created_at <= ${at}`;
}

function conditions(accountId: string, f: ActivityFilters): SQL {
  const tz = resolveTimeZone(f.tz);
  const where: SQL[] = [sql`a.account_id = ${accountId}`];
  for (const c of [bound("start_date", f.startDate, tz), bound("end_date", f.endDate, tz)]) if (c) where.push(c);
  if (f.action) where.push(sql`a.action = ${f.action}`);
  if (f.actorType) where.push(sql`a.actor_type = ${f.actorType}`);
  if (f.actorId) where.push(sql`a.actor_id = ${f.actorId}`);
  if (f.objectType) where.push(sql`a.object_type = ${f.objectType}`);
  if (f.objectId) where.push(sql`a.object_id = ${f.objectId}`);
  return sql.join(where, sql` AND `);
}

type Row = Omit<ActivityEntry, "activity_id" | "seq" | "created_at"> & { id: string; seq: number | string; created_at: Date | string };

const entry = (r: Row): ActivityEntry => ({
  activity_id: r.id,
  seq: Number(r.seq),
  created_at: new Date(r.created_at).toISOString(),
  actor_type: r.actor_type,
  actor_id: r.actor_id,
  actor_label: r.actor_label,
  action: r.action,
  object_type: r.object_type,
  object_id: r.object_id,
  before: typeof r.before === "string" ? JSON.parse(r.before) : r.before,
  after: typeof r.after === "string" ? JSON.parse(r.after) : r.after,
  ip_address: r.ip_address,
  user_agent: r.user_agent,
});

async function readEntries(db: Db, where: SQL, belowSeq: number | null, limit: number): Promise<ActivityEntry[]> {
  const below = belowSeq === null ? sql`` : sql`AND a.seq < ${belowSeq}`;
  const result = await db.execute(sql`
    SELECT a.id, a.seq, a.created_at, a.actor_type, a.actor_id, a.actor_label, a.action, a.object_type, a.object_id,
           a.before, a.after, a.ip_address, a.user_agent
      FROM account_activity a
     WHERE ${where} ${below}
     ORDER BY a.seq DESC
     LIMIT ${limit}`);
  return rows<Row>(result).map(entry);
}

/** One page of the account's log, newest first; `next_cursor` continues below its last entry. */
export async function listActivity(db: Db, accountId: string, input: { filters: ActivityFilters; cursor?: string; pageSize: number }) {
  const where = conditions(accountId, input.filters);
  let below: number | null = null;
  if (input.cursor) {
    const c = decodeCursor(input.cursor, SEQ_KEY, ACTIVITY_ID);
    below = Number(c.key);
  }
  if (!Number.isInteger(input.pageSize) || input.pageSize < 1) throw invalidInput("page_size must be a positive integer");
  const found = await readEntries(db, where, below, input.pageSize + 1);
  const page = found.slice(0, input.pageSize);
  const last = page.at(-1);
  return { items: page, next_cursor: found.length > input.pageSize && last ? encodeCursor(String(last.seq), last.activity_id) : null };
}

export const ACTIVITY_CSV_HEADER = [
  "seq",
  "activity_id",
  "created_at",
  "actor_type",
  "actor_id",
  "actor_label",
  "action",
  "object_type",
  "object_id",
  "before",
  "after",
  "ip_address",
  "user_agent",
];

const json = (v: unknown): Cell => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * The filtered log as CSV, newest first, streamed in keyset batches. The filters are checked
 * before anything is sent (a bad date is the contract's 400, not a broken download).
 */
export function activityCsv(db: Db, accountId: string, filters: ActivityFilters): ReadableStream<Uint8Array> {
  const where = conditions(accountId, filters);
  return keysetCsvStream<ActivityEntry>({
    header: ACTIVITY_CSV_HEADER,
    batchSize: 1000,
    fetch: (after, limit) => readEntries(db, where, after ? after.seq : null, limit),
    cells: (e) => [e.seq, e.activity_id, e.created_at, e.actor_type, e.actor_id, e.actor_label, e.action, e.object_type, e.object_id, json(e.before), json(e.after), e.ip_address, e.user_agent],
  });
}

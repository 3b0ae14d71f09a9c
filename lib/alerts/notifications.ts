import { and, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { notifications, type NotificationKind } from "../db/schema";
import type { Db } from "../db/types";
import { eventTypes } from "./notify-sql";

export interface NotificationItem {
  id: string;
  kind: NotificationKind;
  event_type: string;
  payload: Record<string, unknown>;
  created_at: string;
  read_at: string | null;
}

/** The account's notifications, newest first, and how many are unread. `before` pages by created_at. */
export async function listNotifications(db: Db, input: { accountId: string; limit?: number; before?: Date }): Promise<{ items: NotificationItem[]; unread_count: number }> {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const where = and(eq(notifications.accountId, input.accountId), input.before ? lt(notifications.createdAt, input.before) : undefined);
  const [list, [unread]] = await Promise.all([
    db.select().from(notifications).where(where).orderBy(desc(notifications.createdAt), desc(notifications.id)).limit(limit),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(notifications)
      .where(and(eq(notifications.accountId, input.accountId), isNull(notifications.readAt))),
  ]);
  return {
    items: list.map((n) => ({
      id: n.id,
      kind: n.kind,
      event_type: eventTypes[n.kind],
      payload: n.payload as Record<string, unknown>,
      created_at: n.createdAt.toISOString(),
      read_at: n.readAt?.toISOString() ?? null,
    })),
    unread_count: unread.n,
  };
}

/** Marks the given notifications of the account read (all unread ones when `ids` is absent). Ids of other accounts are ignored. */
export async function markNotificationsRead(db: Db, input: { accountId: string; ids?: readonly string[] }): Promise<{ marked: number }> {
  if (input.ids && input.ids.length === 0) return { marked: 0 };
  const marked = await db
    .update(notifications)
    .set({ readAt: sql`now()` })
    .where(and(eq(notifications.accountId, input.accountId), isNull(notifications.readAt), input.ids ? inArray(notifications.id, [...input.ids]) : undefined))
    .returning({ id: notifications.id });
  return { marked: marked.length };
}

import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { usageEventRow } from "../audit/usage-event";
import { usageEvents } from "./schema";
import { rows } from "./row-sql";
import { PARTITION_MONTHS_AHEAD, ensureUsagePartitions } from "./partitions";
import type { Database } from "./types";

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});

const monthName = (d: Date) => `usage_events_${d.toISOString().slice(0, 7).replace("-", "_")}`;
const addMonths = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));

async function partitions(): Promise<string[]> {
  return rows<{ name: string }>(
    await database.db.execute(sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                                   WHERE i.inhparent = 'usage_events'::regclass ORDER BY 1`),
  ).map((r) => r.name);
}

async function insertAt(accountId: string, at: Date): Promise<string> {
  const row = { ...usageEventRow({ accountId, eventType: "search", success: true, settledAmount: "0" }), createdAt: at };
  await database.db.insert(usageEvents).values(row);
  return row.id as string;
}

const whereIs = async (id: string) =>
  rows<{ part: string }>(await database.db.execute(sql`SELECT tableoid::regclass::text AS part FROM usage_events WHERE id = ${id}::uuid`))[0]?.part;

describe("usage_events partitions (migration 0015)", () => {
  it("has a partition for this month and the months ahead, and a default", async () => {
    const names = await partitions();
    const now = new Date();
    for (let i = 0; i <= PARTITION_MONTHS_AHEAD; i++) expect(names).toContain(monthName(addMonths(now, i)));
    expect(names).toContain("usage_events_default");
  });

  it("routes a row to its month; a month created later takes its rows out of the default partition", async () => {
    const { accountId } = await seedAccount(database.db);
    const now = await insertAt(accountId, new Date());
    expect(await whereIs(now)).toBe(monthName(new Date()));

    const far = new Date(Date.UTC(new Date().getUTCFullYear() + 2, 5, 15, 12));
    const early = await insertAt(accountId, far);
    expect(await whereIs(early)).toBe("usage_events_default");

    expect(await ensureUsagePartitions(database.db, far)).toBe(PARTITION_MONTHS_AHEAD + 1);
    expect(await whereIs(early)).toBe(monthName(far));
    const left = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM usage_events_default`))[0].n;
    expect(left).toBe(0);
    // Again: nothing missing, nothing created.
    expect(await ensureUsagePartitions(database.db, far)).toBe(0);
  });

  it("prunes to the months of a bounded window", async () => {
    const { accountId } = await seedAccount(database.db);
    const start = addMonths(new Date(), 0);
    const plan = rows<{ "QUERY PLAN": string }>(
      await database.db.execute(sql`EXPLAIN SELECT id FROM usage_events e WHERE e.account_id = ${accountId}
        AND e.created_at >= ${start.toISOString()}::timestamptz AND e.created_at < ${start.toISOString()}::timestamptz + interval '1 day'
        ORDER BY e.created_at DESC, e.id DESC LIMIT 50`),
    )
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    expect(plan).toContain(monthName(start));
    expect(plan).not.toContain(monthName(addMonths(start, 1)));
    expect(plan).not.toContain("usage_events_default");
  });
});

import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { rows } from "./row-sql";
import { analyzeChangedTables } from "./embedded-analyze";

const { db } = await createTestDatabase();

const lastAnalyzed = async (table: string) =>
  rows<{ at: string | null; changed: number }>(await db.execute(sql`SELECT last_analyze AS at, n_mod_since_analyze::int AS changed FROM pg_stat_user_tables WHERE relname = ${table}`))[0];

describe("analyzeChangedTables", () => {
  it("analyzes a table once enough of it changed (autovacuum's rule), its partitioned parent with it, and then nothing until it changes again", async () => {
    await analyzeChangedTables(db);
    const { accountId } = await seedAccount(db);
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        INSERT INTO usage_events (id, account_id, event_type, channel, source_system, success, billable_success, charge_outcome, billing_snapshot_status, run_id, created_at)
        SELECT gen_random_uuid(), ${accountId}, 'tool_execute', 'api', 'test', true, true, 'charged', 'ok', 'run-' || (g / 20), now() - (g || ' seconds')::interval
          FROM generate_series(1, 2000) g`);
      // A PostgreSQL backend reports its table counters when it goes idle, at most once a second:
      // this one reports at the transaction's end, so the counters below see the rows.
      await tx.execute(sql`SELECT pg_stat_force_next_flush()`);
    });
    const partition = rows<{ name: string }>(
      await db.execute(sql`SELECT tableoid::regclass::text AS name FROM usage_events WHERE account_id = ${accountId} GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`),
    )[0].name;
    await expect.poll(async () => (await lastAnalyzed(partition)).changed, { timeout: 15_000 }).toBeGreaterThanOrEqual(2000);

    const analyzed = await analyzeChangedTables(db);
    expect(analyzed).toEqual(expect.arrayContaining([partition, "usage_events"]));
    expect(await lastAnalyzed(partition)).toMatchObject({ at: expect.anything(), changed: 0 });
    // The planner now knows the partition's size.
    const estimated = rows<{ n: number }>(await db.execute(sql`SELECT reltuples::int AS n FROM pg_class WHERE relname = ${partition}`))[0].n;
    expect(estimated).toBeGreaterThanOrEqual(2000);

    expect(await analyzeChangedTables(db)).not.toContain(partition);
  });
});

import { sql } from "drizzle-orm";
import type { Db } from "../db/types";

/** Prints the bytes each usage event takes (table and every index, summed over partitions) and the main tables' sizes. */
export async function printStorage(db: Db) {
  const rows = async <T>(q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as { rows: T[] }).rows;
  // A relation and, when it is partitioned, its partitions (pg_partition_tree lists nothing for a plain table).
  await db.execute(sql`CREATE OR REPLACE FUNCTION pg_temp.tg_bench_tree(rel text) RETURNS SETOF regclass LANGUAGE sql AS
    $$ SELECT relid FROM pg_partition_tree(rel::regclass) WHERE relid <> rel::regclass UNION ALL SELECT rel::regclass $$`);
  const [{ n }] = await rows<{ n: string }>(sql`SELECT count(*) AS n FROM usage_events`);
  const events = Number(n);
  const parts = await rows<{ name: string; bytes: string }>(sql`
    SELECT 'table (heap + TOAST)' AS name, sum(pg_table_size(r)) AS bytes FROM pg_temp.tg_bench_tree('usage_events') r
    UNION ALL
    SELECT i.indexname, (SELECT sum(pg_relation_size(r)) FROM pg_temp.tg_bench_tree(format('%I', i.indexname)) r)
      FROM pg_indexes i WHERE i.tablename = 'usage_events'`);
  const total = parts.reduce((t, p) => t + Number(p.bytes), 0);
  console.log(`\nStorage per usage event (${events.toLocaleString("en")} events): ${Math.round(total / events)} bytes in all`);
  for (const p of parts.sort((a, b) => Number(b.bytes) - Number(a.bytes)))
    console.log(`  ${p.name.padEnd(34)} ${String(Math.round(Number(p.bytes) / events)).padStart(5)} B/event  ${(Number(p.bytes) / 2 ** 20).toFixed(0).padStart(6)} MB`);
  const sizes = await rows<{ table: string; size: string }>(sql`
    SELECT t AS table, pg_size_pretty((SELECT sum(pg_total_relation_size(r)) FROM pg_temp.tg_bench_tree(t) r)) AS size
      FROM unnest(ARRAY['usage_events', 'credits_ledger', 'executions', 'searches', 'usage_hourly_rollup', 'usage_daily_rollup', 'usage_hourly_totals',
                        'usage_spend_day', 'ledger_hourly_rollup', 'ledger_daily_summary']) t`);
  console.log("\nTable sizes (with indexes):");
  for (const r of sizes) console.log(`  ${r.table.padEnd(22)} ${r.size}`);
  // The usage rollups per million events: the summary's, and the spend rollup (one row per day, dimension and value),
  // bounded by the events' own indexes (issue 51).
  const rollups = await rows<{ summary: string; spend: string; summary_rows: string; spend_rows: string }>(sql`
    SELECT pg_total_relation_size('usage_hourly_rollup') + pg_total_relation_size('usage_daily_rollup') + pg_total_relation_size('usage_hourly_totals') AS summary,
           pg_total_relation_size('usage_spend_day') AS spend,
           (SELECT count(*) FROM usage_hourly_rollup) + (SELECT count(*) FROM usage_daily_rollup) + (SELECT count(*) FROM usage_hourly_totals) AS summary_rows,
           (SELECT count(*) FROM usage_spend_day) AS spend_rows`);
  const perMillion = (bytes: number) => ((bytes / 2 ** 20 / events) * 1e6).toFixed(1);
  const r = rollups[0];
  const indexBytes = parts.filter((p) => !p.name.startsWith("table")).reduce((t, p) => t + Number(p.bytes), 0);
  console.log(
    `\nUsage rollups per million events: the summary's ${perMillion(Number(r.summary))} MB (${Math.round((Number(r.summary_rows) / events) * 1e6).toLocaleString("en")} rows); ` +
      `the spend rollup ${perMillion(Number(r.spend))} MB (${Math.round((Number(r.spend_rows) / events) * 1e6).toLocaleString("en")} rows), ` +
      `${Math.round(Number(r.spend) / events)} B/event beside the events' indexes' ${Math.round(indexBytes / events)} B/event ` +
      `(goal: no larger: ${Number(r.spend) <= indexBytes ? "ok" : "MISSED"})`,
  );
}

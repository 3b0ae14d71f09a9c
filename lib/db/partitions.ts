import { sql } from "drizzle-orm";
import type { Db } from "./types";
import { rows } from "./row-sql";

/** Months of `usage_events` partitions kept ready ahead of the current one. */
export const PARTITION_MONTHS_AHEAD = 3;

/**
 * Creates the monthly partitions of `usage_events` from the current month to
 * `PARTITION_MONTHS_AHEAD` months ahead that do not exist yet (migration 0015's
 * `usage_events_ensure_partitions`, which also moves rows of a new month out of the default
 * partition). Cheap when nothing is missing: one catalog lookup per month. Returns how many
 * partitions it created.
 */
export async function ensureUsagePartitions(db: Db, now: Date = new Date()): Promise<number> {
  const result = await db.execute(sql`
    SELECT usage_events_ensure_partitions(${now.toISOString()}::timestamptz,
                                          ${now.toISOString()}::timestamptz + make_interval(months => ${PARTITION_MONTHS_AHEAD})) AS created`);
  return rows<{ created: number }>(result)[0].created;
}

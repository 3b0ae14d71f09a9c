import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";

/**
 * Runs an aggregate statement with JIT compilation off. The planner's cost estimate for a
 * summary over hundreds of thousands of rows crosses `jit_above_cost`, and compiling then costs
 * 0.5-0.8 s, more than the query itself (measured at 1M rows); `SET LOCAL` keeps the setting to
 * this transaction, so nothing else on the pooled connection is affected. `workMem` lets a grouping
 * of tens of thousands of groups (the spend breakdown by agent run) hash in memory instead of
 * spilling to disk (the default 4 MB holds about 10,000 groups of its measures).
 */
export async function analytic<T>(db: Db, query: SQL, opts: { workMem?: "64MB" } = {}): Promise<T[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL jit = off`);
    if (opts.workMem) await tx.execute(sql.raw(`SET LOCAL work_mem = '${opts.workMem}'`));
    return rows<T>(await tx.execute(query));
  });
}

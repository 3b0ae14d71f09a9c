import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";

/**
 * Runs an aggregate statement with JIT compilation off. The planner's cost estimate for a
 * summary over hundreds of thousands of rows crosses `jit_above_cost`, and compiling then costs
 * 0.5-0.8 s, more than the query itself (measured at 1M rows); `SET LOCAL` keeps the setting to
 * this transaction, so nothing else on the pooled connection is affected.
 */
export async function analytic<T>(db: Db, query: SQL): Promise<T[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL jit = off`);
    return rows<T>(await tx.execute(query));
  });
}

import path from "node:path";
import { sql } from "drizzle-orm";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { Database } from "./types";
import { installLeanFunctions } from "./lean-functions";

export const migrationsFolder = path.resolve(process.env.TOLLGATE_ROOT ?? process.cwd(), "lib/db/migrations");

/**
 * Applies the checked-in migrations, then (re)creates the functions derived from the tables as
 * they now are (lib/db/lean-functions.ts). On PostgreSQL an advisory lock serialises concurrent
 * instances.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    await installLeanFunctions(database.db);
    return;
  }
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7201300)`);
    await migratePg(tx as unknown as NodePgDatabase, { migrationsFolder });
    await installLeanFunctions(tx as unknown as Database["db"]);
  });
}

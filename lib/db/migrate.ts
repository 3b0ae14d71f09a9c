import path from "node:path";
import { sql } from "drizzle-orm";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { Database } from "./types";

export const migrationsFolder = path.resolve(process.env.TOLLGATE_ROOT ?? process.cwd(), "lib/db/migrations");

/** Applies the checked-in migrations. On PostgreSQL an advisory lock serialises concurrent instances. */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    return;
  }
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7201300)`);
    await migratePg(tx as unknown as NodePgDatabase, { migrationsFolder });
  });
}

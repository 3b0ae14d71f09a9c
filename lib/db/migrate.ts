import path from "node:path";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { Database, Db } from "./types";
import { installLeanFunctions } from "./lean-functions";
import { poolOf } from "./open";
import { logger } from "../log";

export const migrationsFolder = path.resolve(process.env.TOLLGATE_ROOT ?? process.cwd(), "lib/db/migrations");

/**
 * Applies the checked-in migrations, then (re)creates the functions derived from the tables as
 * they now are (lib/db/lean-functions.ts). On PostgreSQL instances starting together take turns:
 * a session-level advisory lock on one connection spans both steps. (A transaction-level lock
 * does not: drizzle's migrator sends its own BEGIN and COMMIT on the connection it is given, which
 * commit an enclosing transaction and release its lock, and instances then replaced the functions
 * at the same time: "tuple concurrently updated".)
 */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    await installLeanFunctions(database.db);
    return;
  }
  const client = await poolOf(database.db)!.connect();
  // A connection lost between two queries errs on the client, not a query: without a listener the process would crash.
  const lost = (err: Error) => logger.warn({ err: err.message }, "migration connection lost");
  client.on("error", lost);
  try {
    await client.query("select pg_advisory_lock(7201300)");
    const db = drizzlePg(client);
    await migratePg(db, { migrationsFolder });
    await installLeanFunctions(db as unknown as Db);
    await client.query("select pg_advisory_unlock(7201300)");
  } catch (err) {
    // The failed connection is closed, and its lock goes with it.
    client.off("error", lost);
    client.release(err as Error);
    throw err;
  }
  client.off("error", lost);
  client.release();
}

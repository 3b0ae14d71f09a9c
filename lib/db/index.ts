import { env, dataDir } from "../env";
import { openDatabase } from "./open";
import { migrateDatabase } from "./migrate";
import type { Database } from "./types";

export type { Database, Db, DbKind } from "./types";

// Module state can exist twice in one process (the server bundle and Next's bundle): keep the
// one database handle on globalThis.
const globalKey = Symbol.for("tollgate.database");
type GlobalWithDb = typeof globalThis & { [globalKey]?: Promise<Database> };

/** The process-wide database: PostgreSQL when DATABASE_URL is set, else embedded PGlite in DATA_DIR. */
export function getDatabase(): Promise<Database> {
  const g = globalThis as GlobalWithDb;
  if (!g[globalKey]) {
    if (process.env.NEXT_PHASE === "phase-production-build") {
      throw new Error("The database must not be opened while `next build` prerenders pages");
    }
    g[globalKey] = (async () => {
      const e = env();
      const database = e.DATABASE_URL
        ? await openDatabase({ kind: "postgres", url: e.DATABASE_URL })
        : await openDatabase({ kind: "pglite", dataDir: `${dataDir()}/pgdata` });
      await migrateDatabase(database);
      return database;
    })();
    g[globalKey].catch(() => {
      delete g[globalKey];
    });
  }
  return g[globalKey];
}

/** Installs an already-open database as the process-wide one (the server does this at start). */
export function setDatabase(database: Database): void {
  (globalThis as GlobalWithDb)[globalKey] = Promise.resolve(database);
}

import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema";
import { acquireDataDirLock } from "./lock";
import type { Database, Db } from "./types";
import { logger } from "../log";
import { trackPool } from "../observability/metrics";

// numeric stays a string (exact decimals); int8 (bigserial seq, counts) becomes a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export type OpenOptions =
  | { kind: "postgres"; url: string; poolSize?: number; /** 0: connections live on (a bulk load's session state). */ maxLifetimeSeconds?: number }
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob; lock?: boolean };

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.kind === "postgres") {
    // The money path's statements are named (prepared once per connection), and PostgreSQL keeps
    // the generic plan it settles on after five runs until the next ANALYZE of the tables (never,
    // with autovacuum off): one made while `executions` and `credit_balances` were small reads them
    // by sequential scan, and went on doing so at tens of thousands of rows (found with
    // pg_stat_user_tables during bench:call). Connections are therefore replaced after two minutes,
    // and their statements planned again against the tables as they are; idle ones live a minute.
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 20,
      idleTimeoutMillis: 60_000,
      maxLifetimeSeconds: options.maxLifetimeSeconds ?? 120,
      // A database that does not answer fails the request (503) instead of hanging it.
      connectionTimeoutMillis: 5_000,
    });
    // Without a listener a PostgreSQL restart would crash the process.
    pool.on("error", (err) => logger.error({ err: err.message }, "postgres pool error"));
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    // Its saturation is read at each metrics scrape (tollgate_db_pool_*).
    const untrack = trackPool(pool);
    return {
      db,
      kind: "postgres",
      close: () => {
        untrack();
        return pool.end();
      },
    };
  }

  let release: (() => void) | undefined;
  if (options.dataDir) {
    fs.mkdirSync(path.dirname(path.resolve(options.dataDir)), { recursive: true });
    if (options.lock !== false) release = acquireDataDirLock(path.resolve(options.dataDir));
  }
  try {
    const client = await PGlite.create({
      dataDir: options.dataDir ? path.resolve(options.dataDir) : undefined,
      loadDataDir: options.loadDataDir,
      extensions: { pg_trgm },
    });
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    return {
      db,
      kind: "pglite",
      close: async () => {
        await client.close();
        release?.();
      },
    };
  } catch (err) {
    release?.();
    throw err;
  }
}

/** The node-postgres pool behind a drizzle handle; undefined on PGlite (and inside a transaction). */
export function poolOf(db: Db): pg.Pool | undefined {
  const client = (db as unknown as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : undefined;
}

import { sql } from "drizzle-orm";
import type { Db } from "./types";
import { rows } from "./row-sql";

/** How often the embedded database's statistics are brought up to date. */
export const ANALYZE_INTERVAL_MS = 10 * 60_000;

/**
 * The embedded database (PGlite) runs no autovacuum, so its planner never learns that a table
 * grew: with the statistics of an empty table it reads 10,000 usage events by a bitmap scan and a
 * sort where an index read in order would do. This applies autovacuum's own rule (analyze a
 * table once more than 50 + 10 % of its rows changed since its last ANALYZE) to the tables
 * PGlite counts changes for, and returns those it analyzed. Partitioned parents are analyzed with
 * a partition that changed, as PostgreSQL's autovacuum never does for them.
 */
export async function analyzeChangedTables(db: Db): Promise<string[]> {
  const stale = rows<{ schema: string; name: string; parent: string | null }>(
    await db.execute(sql`
      SELECT s.schemaname AS schema, s.relname AS name,
             (SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = s.relid) AS parent
        FROM pg_stat_user_tables s
       WHERE s.n_mod_since_analyze > 50 + 0.1 * s.n_live_tup
       ORDER BY s.relname`),
  );
  const names = [...new Set(stale.flatMap((t) => (t.parent ? [t.name, t.parent] : [t.name])))];
  const schemaOf = new Map(stale.map((t) => [t.name, t.schema]));
  for (const name of names) await db.execute(sql`ANALYZE ${sql.identifier(schemaOf.get(name) ?? "public")}.${sql.identifier(name)}`);
  return names;
}

/** Analyzes what changed now and every ANALYZE_INTERVAL_MS; returns a function that stops it. */
export function startEmbeddedAnalyzer(db: Db, onDone: (tables: string[], ms: number) => void, onError: (err: Error) => void): () => void {
  const run = () => {
    const started = performance.now();
    analyzeChangedTables(db).then((tables) => onDone(tables, Math.round(performance.now() - started)), onError);
  };
  const timer = setInterval(run, ANALYZE_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

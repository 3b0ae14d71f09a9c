import type pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { env } from "../env";
import { logger } from "../log";
import { QUEUED_BYTES, headerLine } from "./csv";

/**
 * One CSV column: its header and its SQL. `text` cells are guarded against formula injection and
 * may be empty; a `value` (an id, an instant, a number, a boolean) is written as PostgreSQL's text
 * of it, never guarded. Both the keyset writer and PostgreSQL's COPY write the same bytes for it.
 */
export interface CsvColumn {
  name: string;
  sql: SQL;
  kind: "text" | "value";
}

/**
 * The formula guard of `guardCell` in SQL, on a column of the subquery `q`: a cell starting with
 * = + - @ TAB or CR (ASCII 61 43 45 64 9 13) that is not a plain number gets a leading quote. The
 * empty string becomes NULL, which COPY writes as an empty field (it would quote ""). COPY then
 * quotes a field holding a comma, quote, CR or LF and doubles its quotes, as `csvField` does.
 */
const guarded = (c: string) =>
  `CASE WHEN ascii(${c}) IN (61, 43, 45, 64, 9, 13) AND ${c} !~ '^-?[0-9]+(\\.[0-9]+)?$' THEN '''' || ${c} ELSE nullif(${c}, '') END`;

/**
 * `COPY (…) TO STDOUT (FORMAT csv)` of `columns` over `from` (FROM, WHERE; no ORDER BY), newest
 * first: descending on `keys` (named `k0`, `k1`… outside the inner query). The columns are computed
 * once in an inner query and guarded outside it, so an expensive column (JSON rebuilt from compact
 * columns) is not evaluated once per test of the guard.
 */
export function copyCsvStatement(columns: CsvColumn[], from: SQL, keys: SQL[]): string {
  // Every cell as text (a boolean as true/false, as the keyset path writes it).
  const inner = sql.join(
    [...columns.map((c, i) => sql`(${c.sql})::text AS c${sql.raw(String(i))}`), ...keys.map((k, i) => sql`${k} AS k${sql.raw(String(i))}`)],
    sql`, `,
  );
  const outer = columns.map((c, i) => (c.kind === "text" ? guarded(`q.c${i}`) : `q.c${i}`)).join(", ");
  const innerOrder = sql.join(keys.map((k) => sql`${k} DESC NULLS LAST`), sql`, `);
  const outerOrder = keys.map((_, i) => `q.k${i} DESC NULLS LAST`).join(", ");
  // The subquery keeps its index order (OFFSET 0: not flattened), and the outer ORDER BY on its
  // sort keys costs no sort: PostgreSQL sees the subquery's order.
  const query = sql`SELECT ${sql.raw(outer)} FROM (SELECT ${inner} ${from} ORDER BY ${innerOrder} OFFSET 0) q ORDER BY ${sql.raw(outerOrder)}`;
  // COPY takes no bind parameters: the values are written as literals, quotes doubled, which is
  // exact with standard_conforming_strings on (set for the COPY's transaction below).
  const rendered = new PgDialect().sqlToQuery(query.inlineParams());
  if (rendered.params.length > 0) throw new Error("copyCsvStatement: a parameter was not inlined");
  return `COPY (${rendered.sql}) TO STDOUT (FORMAT csv)`;
}

/**
 * A COPY holds its connection for the whole export (minutes at millions of rows). At most
 * EXPORT_COPY_SLOTS exports (default: a quarter of the pool's connections) do so at once; beyond
 * that an export takes the keyset path, which holds a connection only per batch, so exports never
 * starve Calls of connections.
 */
const copying = new WeakMap<pg.Pool, number>();

export function takeCopySlot(pool: pg.Pool): (() => void) | null {
  const held = copying.get(pool) ?? 0;
  if (held >= (env().EXPORT_COPY_SLOTS ?? Math.max(1, Math.floor((pool.options.max ?? 10) / 4)))) return null;
  copying.set(pool, held + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    copying.set(pool, (copying.get(pool) ?? 1) - 1);
  };
}

/**
 * A CSV body written by PostgreSQL: the header, then each statement's output as it comes, one
 * statement after another on one connection, each in its own read-only transaction (so no
 * snapshot lives longer than its statement). The server formats nothing; it reads the connection
 * only while the response takes chunks, so PostgreSQL waits on a slow client and memory stays
 * about a megabyte. `release` is called once the connection is back.
 */
export function copyCsvStream(
  pool: pg.Pool,
  header: string[],
  statements: () => Promise<string[]>,
  release: () => void,
): ReadableStream<Uint8Array> {
  let client: pg.PoolClient | null = null;
  let queue: string[] = [];
  let copy: ReturnType<typeof copyTo> | null = null;
  let chunks: AsyncIterator<Buffer> | null = null;
  let cancelled = false;
  // A connection lost while no query is in flight (between slices) errs on the client: without a
  // listener the process would crash. The next query fails and ends the export.
  const lost = (err: Error) => logger.warn({ err: err.message }, "CSV export connection lost");
  const done = (err?: Error) => {
    // A connection left mid-COPY (an error, a client gone) is closed, not returned to the pool.
    client?.off("error", lost);
    client?.release(err ?? undefined);
    client = null;
    release();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(Buffer.from(headerLine(header)));
      },
      async pull(controller) {
        try {
          if (!client) {
            queue = await statements();
            const connected = await pool.connect();
            if (cancelled) return connected.release();
            client = connected;
            client.on("error", lost);
          }
          for (;;) {
            if (!chunks) {
              const statement = queue.shift();
              if (statement === undefined) {
                done();
                return controller.close();
              }
              // jit: a window's plan is priced far above jit_above_cost, and compiling it took ~650 ms.
              await client.query("BEGIN READ ONLY; SET LOCAL standard_conforming_strings = on; SET LOCAL jit = off");
              if (cancelled) return;
              copy = client.query(copyTo(statement));
              chunks = copy[Symbol.asyncIterator]();
            }
            const next = await chunks.next();
            if (cancelled) return;
            if (!next.done) return controller.enqueue(next.value);
            await client.query("COMMIT");
            chunks = null;
          }
        } catch (err) {
          if (cancelled) return;
          logger.error({ err: (err as Error).message }, "CSV export failed mid-stream");
          done(err as Error);
          throw err;
        }
      },
      cancel() {
        cancelled = true;
        copy?.destroy();
        done(new Error("export cancelled"));
      },
    },
    { highWaterMark: QUEUED_BYTES, size: (chunk) => chunk.byteLength },
  );
}

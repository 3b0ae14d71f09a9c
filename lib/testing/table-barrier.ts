import pg from "pg";

/**
 * Runs `race` on PostgreSQL (`url`) while another connection holds `table` in SHARE mode: each
 * racer stops at its first write to the table, after the checks that came before, and all are let
 * go together once `racers` backends wait for a lock. Without a lock taken before those checks,
 * every racer has then checked before any wrote. On PGlite (no `url`: one connection, nothing
 * races) `race` just runs.
 */
export async function holdingTable<T>(url: string | undefined, table: string, racers: number, race: () => Promise<T>): Promise<T> {
  if (!url) return race();
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query(`LOCK TABLE ${pg.escapeIdentifier(table)} IN SHARE MODE`);
    const running = race();
    await waitForWaiters(holder, racers);
    await holder.query("COMMIT");
    return await running;
  } finally {
    await holder.end();
  }
}

async function waitForWaiters(holder: pg.Client, racers: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    // Statistics views are read once per transaction unless the snapshot is cleared.
    await holder.query("SELECT pg_stat_clear_snapshot()");
    const { rows } = await holder.query<{ state: string | null; wait: string | null; query: string }>(
      "SELECT state, wait_event_type || ':' || wait_event AS wait, left(query, 120) AS query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
    );
    const waiting = rows.filter((r) => r.state === "active" && r.wait?.startsWith("Lock:")).length;
    if (waiting >= racers) return;
    if (Date.now() > deadline) throw new Error(`only ${waiting} of ${racers} racers waited for a lock in 20 s: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

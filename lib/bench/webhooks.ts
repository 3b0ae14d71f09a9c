// bench:webhooks — a threshold crossing to the webhook received: notify (the CTEs every settlement
// statement embeds, committing the notification and its outbox row) → pg_notify at commit → the
// delivery worker claims, signs and POSTs → a receiver on 127.0.0.1 has it. Prints p50/p95/p99/max.
//
// PostgreSQL: a fresh database on BENCH_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// dropped afterwards; the worker runs on its own pool and LISTEN connection, as on another instance.
// PGlite: in memory, the worker in-process. BENCH_N notifications per scenario (default 300).
import crypto from "node:crypto";
import { adminStatement, percentile } from "./harness";
import { openDatabase } from "../db/open";
import { migrateDatabase } from "../db/migrate";
import type { Database } from "../db/types";
import { createAccount } from "../accounts/create-account";
import { notify } from "../alerts/notify-sql";
import { createWebhookEndpoint } from "../webhooks/endpoints";
import { startWebhookWorker } from "../webhooks/deliver";
import { startWebhookReceiver, type WebhookReceiver } from "../testing/webhook-receiver";

const N = Number(process.env.BENCH_N ?? 300);
const WARMUP = 20;
const BURST_WRITERS = 8;
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

interface Row {
  backend: string;
  scenario: string;
  /** Where the latency is measured from: the crossing statement's start, or its commit. */
  from: string;
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Sends `count` notifications (`writers` at a time) and returns each one's latency to the
 * receiver: from the start of its statement, and from its commit (when the crossing exists).
 */
async function measure(database: Database, receiver: WebhookReceiver, accountId: string, count: number, writers: number): Promise<{ fromStart: number[]; fromCommit: number[] }> {
  const started = new Map<string, number>();
  const committed = new Map<string, number>();
  const latencies: number[] = [];
  const fromCommit: number[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  receiver.onReceive = (req) => {
    const claimKey = (JSON.parse(req.body) as { data: { claim_key: string } }).data.claim_key;
    const t0 = started.get(claimKey);
    if (t0 === undefined) return;
    started.delete(claimKey);
    latencies.push(req.receivedAt - t0);
    fromCommit.push(req.receivedAt - (committed.get(claimKey) ?? req.receivedAt));
    if (latencies.length === count) done();
  };
  const run = crypto.randomBytes(4).toString("hex");
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < count) {
        const claimKey = `bench:${run}:${next++}`;
        started.set(claimKey, performance.now());
        await notify(database.db, { accountId, kind: "low_balance", claimKey, payload: { claim_key: claimKey, balance_credits: "4.5", threshold_credits: "5" } });
        if (started.has(claimKey)) committed.set(claimKey, performance.now());
        // Crossings come from requests, each its own I/O event: yield to the event loop as a server
        // does between them (else in-process writers keep the embedded database's thread to themselves).
        await new Promise((r) => setImmediate(r));
        // One at a time means one crossing at rest: wait for it before the next.
        if (writers === 1) while (started.has(claimKey)) await new Promise((r) => setTimeout(r, 1));
      }
    }),
  );
  await Promise.race([all, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${latencies.length}/${count} webhooks arrived`)), 60_000))]);
  return { fromStart: latencies, fromCommit };
}

async function bench(backend: string, database: Database, worker: Database, listenUrl: string | undefined): Promise<Row[]> {
  await migrateDatabase(database);
  const receiver = await startWebhookReceiver();
  const { account_id: accountId } = await createAccount(database.db, { name: "bench webhooks" });
  await createWebhookEndpoint(database.db, { accountId, url: `${receiver.url}/hook`, allowPrivateNetwork: true });
  const running = startWebhookWorker(worker.db, { listen: { kind: worker.kind, url: listenUrl }, pollMs: 5_000 });
  try {
    await new Promise((r) => setTimeout(r, 500));
    await measure(database, receiver, accountId, WARMUP, 1);
    const rows: Row[] = [];
    for (const [scenario, writers] of [
      ["one crossing at a time", 1],
      [`burst: ${BURST_WRITERS} writers`, BURST_WRITERS],
    ] as const) {
      const measured = await measure(database, receiver, accountId, N, writers);
      for (const [from, values] of [
        ["statement start", measured.fromStart],
        ["commit", measured.fromCommit],
      ] as const) {
        const sorted = [...values].sort((a, b) => a - b);
        rows.push({ backend, scenario, from, n: sorted.length, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)!) });
      }
    }
    return rows;
  } finally {
    await running.stop();
    await receiver.close();
  }
}

const admin = (statement: string) => adminStatement(ADMIN_URL, statement);

async function main() {
  const rows: Row[] = [];

  const name = `tollgate_bench_webhooks_${crypto.randomBytes(4).toString("hex")}`;
  let postgres = true;
  try {
    await admin(`CREATE DATABASE "${name}"`);
  } catch (err) {
    postgres = false;
    console.log(`PostgreSQL skipped (${(err as Error).message})`);
  }
  if (postgres) {
    const u = new URL(ADMIN_URL);
    u.pathname = `/${name}`;
    const database = await openDatabase({ kind: "postgres", url: u.toString(), poolSize: 10 });
    const instance = await openDatabase({ kind: "postgres", url: u.toString(), poolSize: 10 });
    try {
      rows.push(...(await bench("PostgreSQL (worker on another pool)", database, instance, u.toString())));
    } finally {
      await instance.close();
      await database.close();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  }

  const embedded = await openDatabase({ kind: "pglite" });
  try {
    rows.push(...(await bench("PGlite (in-process)", embedded, embedded, undefined)));
  } finally {
    await embedded.close();
  }

  const header = ["database", "scenario", "from", "n", "p50 ms", "p95 ms", "p99 ms", "max ms"];
  const body = rows.map((r) => [r.backend, r.scenario, r.from, r.n, r.p50, r.p95, r.p99, r.max].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  console.log("\nthreshold crossing → webhook received (the notifying statement's start or commit → the receiver has the signed POST)");
  console.log(line(header));
  for (const b of body) console.log(line(b));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// npm run bench:audit — the audit API at a million rows, on PostgreSQL.
//
// Generates BENCH_EVENTS (default 1,000,000; `--events N`) usage events over BENCH_DAYS (`--days`;
// 90, or 365 above a million events) in BENCH_ACCOUNTS accounts (`--accounts`; 1, or 100 above a
// million events, the first holding half of the events and the rest sharing the other half), with
// their executions, searches and linked ledger rows (a continuous balance chain per account), by
// bulk INSERT ... SELECT generate_series; then times the audit endpoints of the largest account
// through the real HTTP server running in a child process, its full CSV export with the child's
// peak RSS, and the bytes each usage event takes (table and every index).
// DATABASE_URL: the PostgreSQL database to use (the account is added to it); without it a fresh
// database tollgate_bench_audit_<rand> is created on postgres://postgres@127.0.0.1:5432 and dropped
// (BENCH_KEEP=1 keeps it and prints its URL; BENCH_ACCOUNT=<acc_…> with that DATABASE_URL measures the
// kept account again without reloading). `--export-only` skips the latency cases; EXPORT_COPY_SLOTS=0
// measures the export's keyset path instead of COPY. `--shape high-cardinality` loads agent traffic
// whose every event draws its tool (of 300), key (of 50), model and run independently, ~1 run per
// 20 Calls (docs/audit.md, the spend rollups); the default shape is correlated clients' traffic.
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { NODE_BUNDLE } from "../build/node-bundle.mjs";
import { sql } from "drizzle-orm";
import { adminStatement, flag, printTable, runMain, statusField } from "./harness";
import { printStorage } from "./storage-report";
import { type CompactJsonColumn, compactJsonText, compactSourceRefIdText, usageJsonText } from "../audit/usage-compact";

process.env.PUBLIC_URL ??= "http://tollgate.bench";
process.env.LOG_LEVEL ??= "warn";
process.env.SEED_DEMO = "false";

const EVENTS = Number(flag("events") ?? process.env.BENCH_EVENTS ?? 1_000_000);
const DAYS = Number(flag("days") ?? process.env.BENCH_DAYS ?? (EVENTS > 1_000_000 ? 365 : 90));
const ACCOUNTS = Number(flag("accounts") ?? process.env.BENCH_ACCOUNTS ?? (EVENTS > 1_000_000 ? 100 : 1));
if (![EVENTS, DAYS, ACCOUNTS].every((n) => Number.isInteger(n) && n > 0)) throw new Error("--events, --days and --accounts take positive integers");
const SHAPE = flag("shape") ?? process.env.BENCH_SHAPE ?? "correlated";
if (SHAPE !== "correlated" && SHAPE !== "high-cardinality") throw new Error("--shape takes correlated or high-cardinality");
/** High cardinality: the measured account's tools, keys and the run of every event drawn independently. */
const HIGH = SHAPE === "high-cardinality";
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 100);
const WARMUP = 20;
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SELF = fileURLToPath(import.meta.url);

async function main() {
  if (process.argv[2] === "serve") return serve(process.argv[3]);
  const { openDatabase } = await import("../db/open");
  const { migrateDatabase } = await import("../db/migrate");

  let url = process.env.DATABASE_URL;
  let dropAfter: string | null = null;
  if (url && !url.startsWith("postgres")) throw new Error("bench:audit needs PostgreSQL: DATABASE_URL must be a postgres:// URL");
  if (!url) {
    dropAfter = `tollgate_bench_audit_${crypto.randomBytes(4).toString("hex")}`;
    await admin(`CREATE DATABASE "${dropAfter}"`);
    const u = new URL(ADMIN_URL);
    u.pathname = `/${dropAfter}`;
    url = u.toString();
  }
  // One connection, kept for the whole run: the load's session settings and temporary tables must stay on it.
  const database = await openDatabase({ kind: "postgres", url, poolSize: 1, maxLifetimeSeconds: 0 });
  let server: ChildProcess | undefined;
  try {
    // --storage: print the bytes per usage event of DATABASE_URL as it is (no migration, no load).
    if (process.argv.includes("--storage")) return await printStorage(database.db);
    // A kept database from an earlier version is migrated here: the time is the migration's at this size.
    await timed("migrations", () => migrateDatabase(database));
    const db = database.db;
    const reuse = process.env.BENCH_ACCOUNT;
    const { accountId, token, executionIds } = reuse ? await existing(db, reuse) : await timed("bulk load", () => load(db, dropAfter !== null));
    const { sealAuditHours } = await import("../audit/seal");
    await timed(`${reuse ? "seal catch-up" : `initial seal (${DAYS} days of hourly rollups, daily settlement summaries with readiness)`}`, () => sealAuditHours(db, accountId));

    const child = await startServer(url);
    server = child.process;
    const base = `${child.url}/api/v1`;
    const headers = { authorization: `Bearer ${token}` };
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const pick = () => executionIds[Math.floor(Math.random() * executionIds.length)];

    const cases: { name: string; goal?: number; path: () => string }[] = [
      { name: "list: first page, unfiltered", goal: 50, path: () => "/auth/usage/history/v2" },
      { name: "list: charge_outcome=charged + 30-day range", goal: 50, path: () => `/auth/usage/history/v2?charge_outcome=charged&start_date=${day(-30)}&end_date=${day(-1)}` },
      { name: "list: charge_outcome=failed_charged_review (0.1%)", goal: 50, path: () => "/auth/usage/history/v2?charge_outcome=failed_charged_review" },
      { name: "list: reason_code=provider.error (0.1%)", goal: 50, path: () => "/auth/usage/history/v2?reason_code=provider.error" },
      { name: "list: event_type=model_call (2.5%)", goal: 50, path: () => "/auth/usage/history/v2?event_type=model_call" },
      { name: "lookup by execution_id (/auth/lookup)", goal: 50, path: () => `/auth/lookup?id=${pick()}` },
      { name: "list by execution_id (contract 4.2)", goal: 50, path: () => `/auth/usage/history/v2?execution_id=${pick()}` },
      { name: "usage summary: 30 days, day buckets", goal: 300, path: () => `/auth/usage/history/v2?summary=true&bucket=day&start_date=${day(-30)}&end_date=${day(0)}` },
      { name: "usage summary: 30 days, day buckets, tz=Europe/Paris", goal: 300, path: () => `/auth/usage/history/v2?summary=true&bucket=day&tz=Europe/Paris&start_date=${day(-30)}&end_date=${day(0)}` },
      { name: "ledger summary: 30 days, day buckets", goal: 300, path: () => `/auth/credits/ledger?summary=true&bucket=day&start_date=${day(-30)}&end_date=${day(0)}` },
      { name: "ledger summary: default (last 24 h)", goal: 300, path: () => "/auth/credits/ledger?summary=true" },
      { name: "ledger readiness: whole history", goal: 300, path: () => "/auth/credits/ledger-readiness" },
      { name: "settlement history: first page", goal: 300, path: () => "/auth/account/settlement-history" },
      { name: "spend breakdown: 90 days by tool", goal: 150, path: () => `/auth/usage/breakdown?group_by=tool&start_date=${day(-90)}&end_date=${day(0)}` },
      { name: "spend breakdown: 90 days by api_key", goal: 150, path: () => `/auth/usage/breakdown?group_by=api_key&start_date=${day(-90)}&end_date=${day(0)}` },
      { name: "spend breakdown: 90 days by tool, day buckets", goal: 300, path: () => `/auth/usage/breakdown?group_by=tool&bucket=day&start_date=${day(-90)}&end_date=${day(0)}` },
      { name: "spend breakdown: 90 days by tool, tz=Europe/Paris", goal: 300, path: () => `/auth/usage/breakdown?group_by=tool&tz=Europe/Paris&start_date=${day(-90)}&end_date=${day(0)}` },
      { name: "spend breakdown: 90 days by agent run (top 20)", goal: 300, path: () => `/auth/usage/breakdown?group_by=run_id&start_date=${day(-90)}&end_date=${day(0)}` },
      // No goal: the Spend page's default for a user in Paris, and a drill-down across two dimensions (counted from the events).
      { name: "spend breakdown: 30 days by tool, day buckets, tz=Europe/Paris", path: () => `/auth/usage/breakdown?group_by=tool&bucket=day&tz=Europe/Paris&start_date=${day(-30)}&end_date=${day(0)}` },
      { name: "spend breakdown: 30 days by tool and api_key", path: () => `/auth/usage/breakdown?group_by=tool,api_key&start_date=${day(-30)}&end_date=${day(0)}` },
    ];
    const results: string[][] = [];
    const exportOnly = process.argv.includes("--export-only");
    for (const c of exportOnly ? [] : cases) {
      for (let i = 0; i < WARMUP; i++) await request(base + c.path(), headers);
      const times: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) times.push(await request(base + c.path(), headers));
      times.sort((a, b) => a - b);
      const p = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
      const goal = c.goal;
      results.push([c.name, p(0.5).toFixed(1), p(0.95).toFixed(1), goal ? `< ${goal}` : "-", goal ? (p(0.95) < goal ? "ok" : "MISSED") : ""]);
    }

    // A kept database (BENCH_ACCOUNT) is described as it is, not as the flags would have loaded it.
    const data = reuse
      ? ((await db.execute(sql`SELECT format('%s usage events in %s account(s), the measured one holding %s of them', to_char(count(*), 'FM999,999,999,999'),
            count(DISTINCT account_id), to_char(count(*) FILTER (WHERE account_id = ${accountId}), 'FM999,999,999,999')) AS d FROM usage_events`)) as unknown as { rows: { d: string }[] }).rows[0].d
      : `${EVENTS.toLocaleString("en")} usage events (${SHAPE} traffic) over ${DAYS} days in ${ACCOUNTS} account(s), the measured one holding ${ACCOUNTS === 1 ? "all" : "half"} of them`;
    const method = exportOnly ? "the export alone" : `${ITERATIONS} requests per case after ${WARMUP} warm-up, sequential, over HTTP (keep-alive) to the API in a child process`;
    console.log(`\nbench:audit — PostgreSQL, ${data}; ${method}\n`);
    if (!exportOnly) printTable(["case", "p50 ms", "p95 ms", "goal", ""], results);
    // The export runs on a fresh server process, so its RSS is the export's and not what the
    // latency cases left in the heap.
    server.kill("SIGTERM");
    await new Promise((r) => server!.once("exit", r));
    const exporter = await startServer(url);
    server = exporter.process;
    const exportBase = `${exporter.url}/api/v1`;
    await request(`${exportBase}/auth/usage/history/v2?limit=1`, headers);
    const rssBefore = rss(exporter.process.pid!);
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(exporter.process.pid!))), 50);
    const started = performance.now();
    const res = await fetch(`${exportBase}/auth/usage/history/v2/export`, { headers });
    if (!res.ok || !res.body) throw new Error(`export failed: ${res.status}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
    }
    const exportSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rss(exporter.process.pid!));
    const hwm = vmHwm(exporter.process.pid!);

    const rowsPerSecond = (lines - 1) / exportSeconds;
    const exportMethod = process.env.EXPORT_COPY_SLOTS === "0" ? "keyset batches (EXPORT_COPY_SLOTS=0)" : "COPY";
    console.log(
      `\nCSV export of the account's rows by ${exportMethod}: ${(lines - 1).toLocaleString("en")} rows, ${(bytes / 1e6).toFixed(0)} MB in ${exportSeconds.toFixed(1)} s, ` +
        `${Math.round(rowsPerSecond).toLocaleString("en")} rows/s (goal >= 40,000: ${rowsPerSecond >= 40_000 ? "ok" : "MISSED"}); ` +
        `server RSS ${mb(rssBefore)} MB before, peak ${mb(peak)} MB during (goal < 300 MB: ${peak < 300 * 1024 ? "ok" : "MISSED"}; process lifetime high-water mark ${mb(hwm)} MB)`,
    );
    await printStorage(db);
  } finally {
    if (server) {
      server.kill("SIGTERM");
      await new Promise((r) => server!.once("exit", r));
    }
    await database.close();
    if (dropAfter && process.env.BENCH_KEEP === "1") console.log(`kept database: ${url}`);
    else if (dropAfter) await admin(`DROP DATABASE IF EXISTS "${dropAfter}" WITH (FORCE)`);
  }
}

/**
 * Bytes per usage event: the table (heap and TOAST) and each index, summed over partitions when
 * the table is partitioned (pg_partition_tree lists a plain table as itself), then the other tables.
 */
/**
 * The bulk load: every row by INSERT ... SELECT, secondary indexes rebuilt once at the end.
 * Events come in groups of 20 (a search, then the Inspects and Calls made with it); a group
 * belongs to one account: with several accounts, the first (the measured one) holds every other
 * group and the rest share the others in turn.
 */
async function load(db: import("../db/types").Db, freshDatabase: boolean) {
  const { createAccount } = await import("../accounts/create-account");
  const { createUser } = await import("../accounts/create-user");
  const { createApiKey } = await import("../auth/api-keys");
  const { DEFAULT_SCOPE, issueAccessToken } = await import("../auth/jwt");
  const run = (q: ReturnType<typeof sql>) => db.execute(q);
  const rows = async <T>(q: ReturnType<typeof sql>) => ((await run(q)) as unknown as { rows: T[] }).rows;

  const members: { accountId: string; apiKeyId: string; events: number }[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const { account_id: accountId } = await createAccount(db, { name: i === 0 ? "bench" : `bench ${i}` });
    const { api_key_id: apiKeyId } = await createApiKey(db, { accountId, name: "bench" });
    const events = ACCOUNTS === 1 ? EVENTS : i === 0 ? EVENTS / 2 : EVENTS / 2 / (ACCOUNTS - 1);
    members.push({ accountId, apiKeyId, events });
  }
  const accountId = members[0].accountId;
  const { user_id: userId } = await createUser(db, { accountId, email: `bench-${accountId}@example.test`, password: "bench password" });
  const { accessToken: token } = await issueAccessToken(db, { userId, accountId, role: "owner", scope: DEFAULT_SCOPE, ttlSeconds: 6 * 3600 });
  const tag = accountId.slice(-10);
  // Correlated: a group of 20 events is one client's work through one key, or one group in ten an agent run (10 groups) of an OAuth client; 3 of 40 tools.
  const CORRELATED_ATTRIBUTION = sql`
           CASE WHEN (g / 20) % 10 = 3 THEN NULL ELSE ba.keys[1 + (g / 20) % array_length(ba.keys, 1)] END AS api_key_id,
           CASE WHEN (g / 20) % 10 = 3 THEN 'run_' || ${tag} || (g / 200) END AS run_id,
           CASE WHEN (g / 20) % 10 = 3 THEN 'cli_bench_agents' END AS oauth_client_id,
           'bench.tool_' || lpad((((g / 20) * 7 + g % 3) % 40)::text, 2, '0') AS tool`;
  // High cardinality: every event draws its key and tool (of 300) independently (hashint4 of the event's number: fixed, uniform);
  // every event belongs to an agent run of ~20 events (~1 run per 20 Calls), one run in ten through an OAuth client instead of a key.
  const HIGH_ATTRIBUTION = sql`
           CASE WHEN (g / 20) % 10 = 3 THEN NULL ELSE ba.keys[(1 + abs(hashint4(g)::bigint) % array_length(ba.keys, 1))::int] END AS api_key_id,
           'run_' || ${tag} || (g / 20) AS run_id,
           CASE WHEN (g / 20) % 10 = 3 THEN 'cli_bench_agents' END AS oauth_client_id,
           'bench.tool_' || lpad((abs(hashint4(g # 7919)::bigint) % 300)::text, 3, '0') AS tool`;

  await run(sql`SET synchronous_commit = off`);
  await run(sql`SET maintenance_work_mem = '512MB'`);
  // Each account's recharges keep its balance positive: 9 days' worth at the start, then 1.35 days' worth every day
  // (for one account of 1M events over 90 days: 100,000 and 15,000 credits).
  await run(sql`CREATE TEMP TABLE bench_accounts (idx int PRIMARY KEY, account_id text, api_key_id uuid, first_grant numeric, daily_grant numeric, keys uuid[])`);
  for (const [idx, m] of members.entries()) {
    const perDay = m.events / DAYS;
    // The measured account spends through five keys (fifty in the high-cardinality shape) and agents' delegation tokens, the others through one.
    const keys = [m.apiKeyId];
    if (idx === 0) for (let k = 2; k <= (HIGH ? 50 : 5); k++) keys.push((await createApiKey(db, { accountId: m.accountId, name: `bench ${k}` })).api_key_id);
    await run(sql`INSERT INTO bench_accounts VALUES (${idx}, ${m.accountId}, ${m.apiKeyId}::uuid, ${Math.ceil(9 * perDay)}, ${Math.ceil(1.35 * perDay)},
                    ${`{${keys.join(",")}}`}::uuid[])`);
  }
  // On a fresh database, drop the secondary indexes during the load and rebuild them from their own definitions
  // (a partitioned table's index is recreated on the table and all its partitions, not ON ONLY the parent).
  const indexes = freshDatabase
    ? await rows<{ indexname: string; indexdef: string }>(sql`SELECT indexname, indexdef FROM pg_indexes
        WHERE tablename IN ('usage_events', 'credits_ledger', 'executions', 'searches') AND indexname NOT LIKE '%_pkey'`)
    : [];
  for (const i of indexes) await run(sql.raw(`DROP INDEX "${i.indexname}"`));

  const end = new Date(Date.now() - 60_000).toISOString();
  const begin = new Date(Date.parse(end) - (DAYS + 1) * 86_400_000).toISOString();
  // A partitioned usage_events needs its months to exist before rows for them arrive.
  const partitioned = await rows<{ f: string | null }>(sql`SELECT to_regproc('usage_events_ensure_partitions')::text AS f`);
  if (partitioned[0].f) await run(sql`SELECT usage_events_ensure_partitions(${begin}::timestamptz, ${end}::timestamptz)`);
  const step = (DAYS * 86_400) / EVENTS;
  // Attribution, correlated as clients use a gateway (the default shape; HIGH_ATTRIBUTION below for the other): a group of 20 events is one client's work, through one of the account's
  // keys (each key's Calls name one of 3 models) or, one group in ten, an agent run through a delegation token of one OAuth
  // client (no key; runs of 10 groups); a group's Calls use 3 of the 40 tools; one group in seven arrives by MCP.
  // Per event g: 30% search, 15% search_by_ids, 50% tool_execute, 2.5% capabilities_query, 2.5% model_call;
  // every group of 20 events starts with a search that the group's Inspects and Calls refer to.
  // tool_execute: 60% charged (0.25, 1, 2 or 5 credits), 24% included, 14% failed_not_charged, ~0.2% failed_charged_review;
  // 1 in 10007 has no billing snapshot.
  await run(sql`
    CREATE TEMP TABLE bench_gen AS
    SELECT g, ts, et, ba.account_id, a,
           ${HIGH ? HIGH_ATTRIBUTION : CORRELATED_ATTRIBUTION},
           CASE WHEN (g / 20) % 7 = 0 THEN 'mcp' ELSE 'api' END AS channel,
           CASE WHEN et IN ('search', 'search_by_ids', 'capabilities_query') THEN 'included'
                WHEN et = 'model_call' THEN 'charged'
                WHEN k < 30 THEN 'charged' WHEN k < 42 THEN 'included'
                WHEN k = 49 AND (g / 1000) % 10 = 0 THEN 'failed_charged_review'
                ELSE 'failed_not_charged' END AS co,
           'exe_' || ${tag} || lpad(g::text, 9, '0') AS exe,
           'srch_' || ${tag} || lpad((CASE WHEN et = 'search' THEN g ELSE g - g % 20 END)::text, 9, '0') AS srch
      FROM (SELECT g, ${end}::timestamptz - (${EVENTS}::int - g) * ${step}::float8 * interval '1 second' AS ts, (g / 20) % 50 AS k,
                   CASE WHEN ${ACCOUNTS}::int = 1 OR (g / 20) % 2 = 0 THEN 0 ELSE 1 + (g / 40) % (${ACCOUNTS}::int - 1) END AS a,
                   CASE WHEN g % 20 < 6 THEN 'search' WHEN g % 20 < 9 THEN 'search_by_ids' WHEN g % 20 < 19 THEN 'tool_execute'
                        WHEN g % 40 = 19 THEN 'capabilities_query' ELSE 'model_call' END AS et
              FROM generate_series(1, ${EVENTS}::int) g) x
      JOIN bench_accounts ba ON ba.idx = x.a`);
  // Each event is built whole (f), then stored as the product stores it: without the JSON keys that repeat a column.
  const eventColumns = `id, account_id, api_key_id, event_type, source_system, source_ref_type, source_ref_id, session_id, search_id,
      execution_id, tool_id, success, billable_success, charge_outcome, reason_code, error_message, duration_ms, billing_snapshot_status,
      billing_rule_snapshot, pre_settlement_bill, settlement_result, pre_settlement_amount_credits, settled_amount_credits,
      requested_amount_credits, actual_amount_credits, execution_outcome, outcome, credits_ledger_entry_id, display_target,
      billing_summary, request_payload, response_payload_summary, cache_hit, model, run_id, oauth_client_id, channel, created_at`;
  const stored = eventColumns
    .split(",")
    .map((c) => c.trim())
    .map((c) =>
      c === "source_ref_id" ? compactSourceRefIdText("f") : ["pre_settlement_bill", "settlement_result", "execution_outcome", "request_payload"].includes(c) ? compactJsonText(c as CompactJsonColumn, "f") : `f.${c}`,
    );
  await run(sql`
    INSERT INTO usage_events (${sql.raw(eventColumns)})
    SELECT ${sql.raw(stored.join(", "))} FROM (
    SELECT (lpad(to_hex((extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || lpad(to_hex(g % 4096), 3, '0') || '8'
              || lpad(to_hex(g), 15, '0'))::uuid,
           account_id, api_key_id, et, 'tollgate', CASE WHEN call THEN 'execution' ELSE 'search' END,
           CASE WHEN call THEN exe ELSE srch END, 'ses_' || ${tag} || a || '_' || (g / 100), srch, CASE WHEN call THEN exe END,
           CASE WHEN call THEN tool END,
           co IN ('charged', 'included'), co IN ('charged', 'included'), co, rc,
           CASE WHEN co IN ('charged', 'included') THEN NULL ELSE 'Upstream said "no", then failed' END,
           5 + g % 300,
           CASE WHEN et = 'tool_execute' AND g % 10007 = 0 THEN 'missing' WHEN call OR et = 'model_call' THEN 'captured' ELSE 'not_applicable' END,
           CASE WHEN call OR et = 'model_call' THEN jsonb_build_object('unit', 'call', 'amount_credits', amt) END,
           jsonb_build_object('execution_id', exe, 'summary', amt || ' credits', 'list_amount_credits', amt),
           jsonb_build_object('settled_amount_credits', amt), amt, amt, amt, amt,
           CASE WHEN call THEN jsonb_build_object('outcome', oc, 'reason_code', rc) END, CASE WHEN call THEN oc END,
           CASE WHEN amt > 0 THEN 'led_' || ${tag} || lpad(g::text, 9, '0') END,
           CASE WHEN call THEN 'Compound interest' ELSE 'compound interest' END,
           CASE WHEN amt > 0 THEN amt || ' credits (per call)' ELSE 'Not charged' END,
           jsonb_build_object('tool_id', 'builtin.finance.compound_interest', 'parameters', jsonb_build_object('principal', g % 1000, 'years', 2)),
           jsonb_build_object('success', co IN ('charged', 'included'), 'size_bytes', 100 + g % 900),
           false, CASE WHEN call OR et = 'model_call' THEN (ARRAY['model-large', 'model-small', 'model-code'])[1 + ${HIGH ? sql.raw("(abs(hashint4(g # 1013)::bigint) % 3)::int") : sql.raw("((g / 20) % 5) % 3")}] END,
           run_id, oauth_client_id, channel, ts
      FROM bench_gen,
      LATERAL (SELECT et IN ('tool_execute', 'capabilities_query') AS call,
                      CASE WHEN co IN ('charged', 'failed_charged_review') THEN (ARRAY[1, 2, 5, 0.25])[1 + (g / 20) % 4]::numeric ELSE 0::numeric END AS amt,
                      CASE WHEN co IN ('charged', 'included') THEN 'result.valid' WHEN co = 'failed_charged_review' THEN 'provider.error'
                           ELSE (ARRAY['provider.http_error', 'transport.timeout', 'validation_error', 'result.empty'])[1 + g % 4] END AS rc) r,
      LATERAL (SELECT CASE rc WHEN 'result.valid' THEN 'success' WHEN 'provider.error' THEN 'provider_error' WHEN 'provider.http_error' THEN 'provider_error'
                      WHEN 'transport.timeout' THEN 'transport_error' WHEN 'validation_error' THEN 'validation_error' ELSE 'empty' END AS oc) o
    ) AS f(${sql.raw(eventColumns)})`);
  const loaded = sql`account_id IN (SELECT account_id FROM bench_accounts)`;
  await run(sql`
    INSERT INTO executions (id, account_id, api_key_id, tool_id, provider_id, search_id, session_id, status, reserved_credits, parameters,
                            success, reason_code, charge_outcome, settled_credits, duration_ms, created_at, settled_at)
    SELECT execution_id, account_id, api_key_id, tool_id, 'builtin', search_id, session_id, 'settled', settled_amount_credits,
           request_payload -> 'parameters', success, reason_code, charge_outcome, settled_amount_credits, duration_ms, created_at, created_at
      FROM usage_events WHERE ${loaded} AND execution_id IS NOT NULL`);
  await run(sql`
    INSERT INTO searches (id, account_id, api_key_id, session_id, query, lang, view, result_ids, created_at)
    SELECT search_id, account_id, api_key_id, session_id, 'compound interest', 'en', 'full', ARRAY['builtin.finance.compound_interest'], created_at
      FROM usage_events WHERE ${loaded} AND event_type = 'search'`);
  // The ledger: a recharge at the start and every day, and one consume row per charge; each account's balance
  // chain (balance_before/after by seq) is a running sum, as the locked balance row would have made it.
  const seqBase = Number((await rows<{ n: number }>(sql`SELECT nextval('credits_ledger_seq_seq') AS n`))[0].n);
  await run(sql`
    INSERT INTO credits_ledger (id, seq, account_id, entry_type, amount_credits, source_system, source_ref_type, source_ref_id, execution_id,
                                usage_event_id, api_key_id, pre_settlement_bill, settlement_result, balance_before, balance_after, ledger_metadata,
                                description, created_at)
    SELECT id, ${seqBase} + row_number() OVER (ORDER BY ts, id), account_id, entry_type, amount, src, reft, refid, exe, evid, api_key_id, psb, sr,
           sum(amount) OVER w - amount, sum(amount) OVER w, meta, descr, ts
      FROM (
        SELECT credits_ledger_entry_id AS id, account_id, api_key_id,
               CASE event_type WHEN 'model_call' THEN 'consume_model_call' ELSE 'consume_tool_execute' END AS entry_type,
               -actual_amount_credits AS amount, 'tollgate' AS src, 'execution' AS reft, coalesce(execution_id, id::text) AS refid,
               execution_id AS exe, CASE WHEN execution_id IS NULL THEN id END AS evid,
               ${sql.raw(usageJsonText("pre_settlement_bill", "usage_events"))} AS psb, ${sql.raw(usageJsonText("settlement_result", "usage_events"))} AS sr,
               jsonb_build_object('credit_split', jsonb_build_object('bonus', '0', 'reward', '0', 'paid', actual_amount_credits::text)) AS meta,
               'Call builtin.finance.compound_interest' AS descr, created_at AS ts
          FROM usage_events WHERE ${loaded} AND credits_ledger_entry_id IS NOT NULL
        UNION ALL
        SELECT 'led_' || ${tag} || 'grant' || ba.idx || '_' || d, ba.account_id, ba.api_key_id, 'grant_payment_recharge',
               CASE WHEN d = 0 THEN ba.first_grant ELSE ba.daily_grant END, 'admin', 'grant',
               'led_' || ${tag} || 'grant' || ba.idx || '_' || d, NULL, NULL, NULL, NULL, '{"credit_kind":"paid"}'::jsonb, 'payment recharge',
               ${end}::timestamptz - ${DAYS}::int * interval '1 day' + d * interval '1 day' - interval '1 second'
          FROM bench_accounts ba, generate_series(0, ${DAYS - 1}::int) d
      ) x
    WINDOW w AS (PARTITION BY account_id ORDER BY ts, id ROWS UNBOUNDED PRECEDING)`);
  await run(sql`SELECT setval('credits_ledger_seq_seq', (SELECT max(seq) FROM credits_ledger))`);
  await run(sql`UPDATE credit_balances b SET paid_credits = s.total
                  FROM (SELECT account_id, sum(amount_credits) AS total FROM credits_ledger WHERE ${loaded} GROUP BY account_id) s
                 WHERE b.account_id = s.account_id`);
  for (const i of indexes) await run(sql.raw(i.indexdef.replace(" ON ONLY ", " ON ")));
  await run(sql`DROP TABLE bench_gen`);
  await run(sql`DROP TABLE bench_accounts`);
  for (const table of ["usage_events", "credits_ledger", "executions", "searches"]) await run(sql.raw(`VACUUM (ANALYZE) ${table}`));

  return { accountId, token, executionIds: await sampleExecutions(db, accountId) };
}

/** A thousand of the account's execution ids, for the lookups. */
async function sampleExecutions(db: import("../db/types").Db, accountId: string): Promise<string[]> {
  const sample = (await db.execute(sql`SELECT id FROM executions TABLESAMPLE SYSTEM (2) WHERE account_id = ${accountId} LIMIT 1000`)) as unknown as {
    rows: { id: string }[];
  };
  return sample.rows.map((r) => r.id);
}

/** BENCH_ACCOUNT=<acc_…> with DATABASE_URL: measure an account loaded by an earlier run (BENCH_KEEP=1). */
async function existing(db: import("../db/types").Db, accountId: string) {
  const { DEFAULT_SCOPE, issueAccessToken } = await import("../auth/jwt");
  const user = ((await db.execute(sql`SELECT id FROM users WHERE account_id = ${accountId} LIMIT 1`)) as unknown as { rows: { id: string }[] }).rows[0];
  if (!user) throw new Error(`BENCH_ACCOUNT ${accountId} has no user in this database`);
  const { accessToken: token } = await issueAccessToken(db, { userId: user.id, accountId, role: "owner", scope: DEFAULT_SCOPE, ttlSeconds: 6 * 3600 });
  return { accountId, token, executionIds: await sampleExecutions(db, accountId) };
}

/** Child process: the real API app on a free port, on the given database. */
async function serve(url: string) {
  const { serve: listen } = await import("@hono/node-server");
  const { openDatabase } = await import("../db/open");
  const { createApiApp } = await import("../api/app");
  const database = await openDatabase({ kind: "postgres", url, poolSize: 10 });
  const app = createApiApp({ database });
  const server = listen({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => {
    process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
  });
  process.on("SIGTERM", () => {
    server.close();
    void database.close().finally(() => process.exit(0));
  });
}

/**
 * The child runs this file bundled by esbuild (as `npm run build` bundles the server) with plain
 * node, so its RSS is the API's own, not the TypeScript loader's.
 */
async function bundleSelf(): Promise<string> {
  const { build } = await import("esbuild");
  const outfile = path.resolve("node_modules/.cache/tollgate-bench/audit-server.mjs");
  await build({ ...NODE_BUNDLE, entryPoints: [SELF], outfile });
  return outfile;
}

async function startServer(url: string): Promise<{ url: string; process: ChildProcess }> {
  const bundle = await bundleSelf();
  const child = spawn(process.execPath, [bundle, "serve", url], { env: process.env, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`bench server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
}

async function request(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  const body = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${url} -> ${res.status}: ${body.slice(0, 300)}`);
  return ms;
}

function rss(pid: number): number {
  return statusField(pid, "VmRSS");
}

function vmHwm(pid: number): number {
  return statusField(pid, "VmHWM");
}


const mb = (kib: number) => (kib / 1024).toFixed(0);

const admin = (statement: string) => adminStatement(ADMIN_URL, statement);

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  console.log(`${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

runMain(main);

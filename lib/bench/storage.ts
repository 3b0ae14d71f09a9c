// npm run bench:storage — the bytes a usage event takes as the product writes it, on PostgreSQL.
//
// bench:audit measures storage on rows it generates in bulk; this writes them through the real API
// (the Hono app in process, the demo catalog): per 20 requests 7 Discover searches, 3 Inspects and
// 10 Calls (6 priced, 2 free, 1 refused for invalid parameters, 1 for an unknown tool), with
// search_id and session_id as an agent sends them. BENCH_STORAGE_EVENTS (default 20,000) events, spread
// over accounts so no rate limit is reached; a fresh database tollgate_bench_storage_<rand> on
// postgres://postgres@127.0.0.1:5432 is created and dropped. Deterministic: the same requests every run.
import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { adminStatement } from "./harness";
import { printStorage } from "./storage-report";

process.env.PUBLIC_URL ??= "http://tollgate.bench";
process.env.LOG_LEVEL ??= "warn";
process.env.SEED_DEMO = "false";

const EVENTS = Number(process.env.BENCH_STORAGE_EVENTS ?? 20_000);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** Under every per-minute limit of one account (120 searches, 200 Calls). */
const GROUPS_PER_ACCOUNT = 15;

const QUERIES = ["compound interest", "convert units of length", "what day of the week", "slugify a title", "regex extract emails", "bmi calculator", "loan payment", "word frequency of a text"];
const PRICED: [string, Record<string, unknown>][] = [
  ["builtin.finance.compound_interest", { principal: 1000, annual_rate_percent: 5, years: 3 }],
  ["builtin.finance.loan_payment", { principal: 20000, annual_rate_percent: 4.5, months: 48 }],
];
const FREE: [string, Record<string, unknown>][] = [
  ["builtin.convert.length", { value: 12, from: "m", to: "cm" }],
  ["builtin.text.slugify", { text: "Hello, World: a title" }],
];

const admin = (statement: string) => adminStatement(ADMIN_URL, statement);

async function main() {
  const name = `tollgate_bench_storage_${crypto.randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const { openDatabase } = await import("../db/open");
  const { migrateDatabase } = await import("../db/migrate");
  const database = await openDatabase({ kind: "postgres", url: url.toString(), poolSize: 4 });
  try {
    await migrateDatabase(database);
    const db = database.db;
    const { importDemoCatalog } = await import("../testing/catalog");
    const { createAccount } = await import("../accounts/create-account");
    const { createApiKey } = await import("../auth/api-keys");
    const { createApiApp } = await import("../api/app");
    await importDemoCatalog(db);
    const app = createApiApp({ database });
    const post = async (key: string, path: string, body: unknown) => {
      const res = await app.fetch(new Request(`http://tollgate.bench/api/v1${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) }));
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status >= 500 || res.status === 429) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    const started = performance.now();
    let written = 0;
    for (let a = 0; written < EVENTS; a++) {
      const { account_id: accountId } = await createAccount(db, { name: `storage ${a}`, credits: "100000" });
      const { api_key: key } = await createApiKey(db, { accountId, name: "bench" });
      for (let g = 0; g < GROUPS_PER_ACCOUNT && written < EVENTS; g++) {
        const n = a * GROUPS_PER_ACCOUNT + g;
        const session_id = `ses_storage_${a}_${Math.floor(g / 5)}`;
        const search = await post(key, "/search", { query: QUERIES[n % QUERIES.length], limit: 5, session_id });
        const search_id = search.search_id as string;
        const found = (search.results as { tool_id: string }[]).map((r) => r.tool_id);
        for (let i = 0; i < 6; i++) await post(key, "/search", { query: QUERIES[(n + i + 1) % QUERIES.length], limit: 5, session_id });
        for (let i = 0; i < 3; i++) await post(key, "/tools/by-ids", { tool_ids: found.slice(i, i + 1 + (i % 2)), search_id, session_id });
        const calls: [string, Record<string, unknown>][] = [...PRICED, ...PRICED, ...PRICED, ...FREE, [PRICED[0][0], { principal: "lots" }], ["builtin.nothing.here", {}]];
        for (const [tool_id, parameters] of calls) await post(key, "/tools/execute", { tool_id, parameters, search_id, session_id });
        written += 20;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`wrote ${written.toLocaleString("en")} events through the API in ${seconds.toFixed(1)} s`);
    await db.execute(sql`VACUUM (ANALYZE) usage_events`);
    await printStorage(db);
  } finally {
    await database.close();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

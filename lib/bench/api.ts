// npm run bench:api — throughput and latency of the API fast path beside a plain node:http server.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, load, pinnedCommand, printTable, startProductServer, waitFor, type LoadResult } from "./harness";

const PLAIN_SERVER = `
const http = require("node:http");
const body = JSON.stringify({ api_version: "2026-07-30.1", service: "tollgate", openapi_url: "/api/v1/openapi.json" });
http.createServer((req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end(body); })
  .listen(Number(process.env.PORT), "127.0.0.1");
`;

async function main() {
  const duration = Number(process.env.BENCH_DURATION ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const plainPort = await freePort();
  const [command, args] = pinnedCommand(["-e", PLAIN_SERVER]);
  const plain = spawn(command, args, { env: { ...process.env, PORT: String(plainPort) }, stdio: "inherit" });
  const server = await startProductServer(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {});
  try {
    await waitFor(`http://127.0.0.1:${plainPort}/`, 10_000);
    const creds = JSON.parse(fs.readFileSync(path.join(server.dataDir, "demo-credentials.json"), "utf8")) as { api_key: string };
    const rows: LoadResult[] = [];
    // Warm-up so JIT and caches are in the same state for every case.
    await load("warm-up", { url: `${server.url}/api/v1/meta`, duration: 3, connections });
    rows.push(await load("plain node:http JSON", { url: `http://127.0.0.1:${plainPort}/`, duration, connections }));
    rows.push(await load("GET /api/v1/meta", { url: `${server.url}/api/v1/meta`, duration, connections }));
    rows.push(
      await load("GET /api/v1/auth/credits (API key)", {
        url: `${server.url}/api/v1/auth/credits`,
        headers: { authorization: `Bearer ${creds.api_key}` },
        duration,
        connections,
      }),
    );
    console.log(`\nbench:api — ${duration}s per case, ${connections} connections, autocannon, database: ${process.env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite"}\n`);
    printTable(rows);
    const ratio = rows[1].rps / rows[0].rps;
    console.log(`\n/meta throughput = ${(ratio * 100).toFixed(1)}% of the plain server (goal >= 50%)`);
  } finally {
    plain.kill();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

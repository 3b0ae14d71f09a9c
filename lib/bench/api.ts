// npm run bench:api — throughput and latency of the API fast path beside a plain node:http server.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, load, median, serverCommand, startProductServer, waitFor, type LoadResult } from "./harness";

const PLAIN_SERVER = `
const http = require("node:http");
const body = JSON.stringify({ api_version: "2026-07-30.1", service: "tollgate", openapi_url: "/api/v1/openapi.json" });
http.createServer((req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end(body); })
  .listen(Number(process.env.PORT), "127.0.0.1");
`;


/**
 * Both servers run on the same CPU and the load generator (autocannon, in this process) on the
 * other. The cases are interleaved over several rounds and medians reported: on this shared
 * 2-core machine a single 10-second run can be 20% off in either direction.
 */
async function main() {
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const plainPort = await freePort();
  const [command, args] = serverCommand(["-e", PLAIN_SERVER], "own-core");
  const plain = spawn(command, args, { env: { ...process.env, PORT: String(plainPort) }, stdio: "inherit" });
  const server = await startProductServer(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {});
  try {
    await waitFor(`http://127.0.0.1:${plainPort}/`, 10_000);
    const creds = JSON.parse(fs.readFileSync(path.join(server.dataDir, "demo-credentials.json"), "utf8")) as { api_key: string };
    const cases: { name: string; opts: Parameters<typeof load>[1] }[] = [
      { name: "plain node:http JSON", opts: { url: `http://127.0.0.1:${plainPort}/` } },
      { name: "GET /api/v1/meta", opts: { url: `${server.url}/api/v1/meta` } },
      { name: "GET /api/v1/auth/credits (API key)", opts: { url: `${server.url}/api/v1/auth/credits`, headers: { authorization: `Bearer ${creds.api_key}` } } },
    ];
    // Warm-up so JIT and caches are in the same state for every case.
    for (const c of cases) await load("warm-up", { ...c.opts, duration: 3, connections });
    const results = cases.map(() => [] as LoadResult[]);
    for (let r = 0; r < rounds; r++) {
      process.stderr.write(`round ${r + 1}/${rounds}…\n`);
      for (const [i, c] of cases.entries()) results[i].push(await load(c.name, { ...c.opts, duration, connections }));
    }

    console.log(`\nbench:api — autocannon, ${connections} connections, ${rounds} interleaved rounds of ${duration} s per case, medians;`);
    console.log(`servers on one CPU, load on the other; ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")};`);
    console.log(`database: ${process.env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite"}; Tollgate at its default log level (a JSON line per request)\n`);
    const header = ["case", "req/s (median)", "p50 ms", "p99 ms", "req/s per round"];
    const body = cases.map((c, i) => {
      const rs = results[i];
      return [c.name, String(median(rs.map((x) => x.rps))), String(median(rs.map((x) => x.p50))), String(median(rs.map((x) => x.p99))), rs.map((x) => x.rps).join(" / ")];
    });
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join("  ");
    console.log(line(header));
    for (const b of body) console.log(line(b));
    const errors = results.flat().reduce((n, r) => n + r.errors + r.non2xx, 0);
    if (errors > 0) console.log(`\n${errors} errors or non-2xx responses`);
    const ratio = median(results[1].map((x) => x.rps)) / median(results[0].map((x) => x.rps));
    console.log(`\n/meta throughput = ${(ratio * 100).toFixed(1)}% of the plain server (goal >= 50%: ${ratio >= 0.5 ? "met" : "missed"})`);
  } finally {
    plain.kill();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

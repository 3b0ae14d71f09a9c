// The money path through PgBouncer in transaction mode (docs/deployment.md): a real pgbouncer
// (Debian's package) in front of the test's PostgreSQL database, four server connections shared by
// twenty client connections, so consecutive transactions of one client land on different servers.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testDbKind } from "../testing/database";
import { openDatabase } from "./open";
import pg from "pg";
import { startTestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { verifyLedger } from "../audit/verify";
import type { Database } from "./types";

const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((p) => fs.existsSync(p));
// CI installs pgbouncer (.ci/run); elsewhere the test says what it needs.
if (process.env.CI && testDbKind() === "postgres" && !PGBOUNCER) throw new Error("the PgBouncer test needs pgbouncer (apt install pgbouncer)");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe.runIf(testDbKind() === "postgres" && PGBOUNCER)("PgBouncer 1.18+ in transaction mode", () => {
  let direct: Database & { url?: string };
  let bouncerUrl: string;
  let bouncer: ChildProcess;
  let dir: string;

  beforeAll(async () => {
    direct = await createTestDatabase();
    await importDemoCatalog(direct.db);
    const target = new URL(direct.url!);
    const port = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-pgbouncer-"));
    fs.writeFileSync(path.join(dir, "userlist.txt"), `"${target.username || "postgres"}" ""\n`);
    fs.writeFileSync(
      path.join(dir, "pgbouncer.ini"),
      [
        "[databases]",
        `* = host=${target.hostname} port=${target.port || 5432}`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${port}`,
        "unix_socket_dir =",
        "auth_type = trust",
        `auth_file = ${dir}/userlist.txt`,
        "pool_mode = transaction",
        "default_pool_size = 4",
        "max_client_conn = 200",
        "ignore_startup_parameters = extra_float_digits,options",
        `logfile = ${dir}/pgbouncer.log`,
      ].join("\n"),
    );
    // pgbouncer refuses to run as root.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) spawnSync("chown", ["-R", "postgres", dir]);
    bouncer = asRoot ? spawn("runuser", ["-u", "postgres", "--", PGBOUNCER!, `${dir}/pgbouncer.ini`], { stdio: "ignore" }) : spawn(PGBOUNCER!, [`${dir}/pgbouncer.ini`], { stdio: "ignore" });
    bouncerUrl = `postgres://${target.username || "postgres"}@127.0.0.1:${port}${target.pathname}`;
    for (let i = 0; i < 100; i++) {
      const ok = await new Promise<boolean>((resolve) => net.connect(port, "127.0.0.1").once("connect", function (this: net.Socket) { this.destroy(); resolve(true); }).once("error", () => resolve(false)));
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(() => {
    bouncer?.kill("SIGTERM");
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("named prepared statements break: a statement prepared on one server connection is missing on another", async () => {
    // What node-postgres sends for a named statement: Parse once per client connection, then only Bind/Execute.
    const pool = new pg.Pool({ connectionString: bouncerUrl, max: 20 });
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => pool.query({ name: `tg_probe_${i % 8}`, text: `select $1::int + ${i % 8} as n`, values: [i] })));
      const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected").map((o) => String((o.reason as Error).message));
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.filter((m) => !/prepared statement "tg_probe_\d" (does not exist|already exists)/.test(m))).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it("with DATABASE_PREPARED_STATEMENTS=false, 100 concurrent Calls and searches through it are exact", async () => {
    process.env.DATABASE_PREPARED_STATEMENTS = "false";
    const { env } = await import("../env");
    // env() is parsed once per process: this file's first read is here, after the variable is set.
    expect(env().DATABASE_PREPARED_STATEMENTS).toBe("false");
    const through = await openDatabase({ kind: "postgres", url: bouncerUrl, poolSize: 20 });
    try {
      const server = await startTestServer(through);
      const a = await seedAccount(through.db, { credits: "60" });
      const call = () =>
        fetch(`${server.url}/api/v1/tools/execute`, {
          method: "POST",
          headers: { ...bearer(a.apiKey), "Content-Type": "application/json" },
          body: JSON.stringify({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } }),
        }).then((r) => r.status);
      const search = () =>
        fetch(`${server.url}/api/v1/search`, { method: "POST", headers: { ...bearer(a.apiKey), "Content-Type": "application/json" }, body: JSON.stringify({ query: "compound interest" }) }).then((r) => r.status);
      const statuses = await Promise.all([...Array.from({ length: 100 }, call), ...Array.from({ length: 50 }, search)]);
      const calls = statuses.slice(0, 100);
      expect(calls.filter((s) => s === 200)).toHaveLength(60);
      expect(calls.filter((s) => s === 402)).toHaveLength(40);
      expect(statuses.slice(100).every((s) => s === 200)).toBe(true);
      const report = await verifyLedger(direct.db, { accountId: a.accountId });
      expect(report.violations).toEqual([]);
      await server.close();
    } finally {
      await through.close();
    }
  });
});

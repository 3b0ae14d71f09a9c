import crypto from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { openDatabase } from "../db/open";
import { migrateDatabase } from "../db/migrate";
import { bundleCliForTests } from "./cli-bundle";
import { adminUrl, mayDropTestDatabase, pgTemplateName, pgliteTemplatePath, testRunTag } from "./template";

/**
 * Builds the migrated database templates once per run: a PGlite data-dir dump (each test file
 * starts from it in ~1 s instead of a 5 s initdb) and, with TEST_DATABASE_URL, a PostgreSQL
 * template database that each test file clones.
 */
export default async function setup() {
  testRunTag();
  await bundleCliForTests();
  const dump = pgliteTemplatePath();
  if (!fs.existsSync(dump)) {
    const database = await openDatabase({ kind: "pglite" });
    await migrateDatabase(database);
    const raw = (database.db as unknown as { $client: { dumpDataDir(c: "gzip"): Promise<Blob> } }).$client;
    const blob = await raw.dumpDataDir("gzip");
    const tmp = `${dump}.${process.pid}`;
    fs.writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
    fs.renameSync(tmp, dump);
    await database.close();
  }

  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const template = pgTemplateName();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await dropIdleTestDatabases(admin);
      const exists = await admin.query("select 1 from pg_database where datname = $1", [template]);
      if (exists.rowCount === 0) {
        // Built under a private name and renamed once migrated: runs that start together (each
        // vitest project runs this setup) never clone a half-built template, and the loser of the
        // rename drops its copy.
        const building = `${template}_b${process.pid}_${crypto.randomBytes(3).toString("hex")}`;
        await admin.query(`create database "${building}"`);
        const database = await openDatabase({ kind: "postgres", url: adminUrl(url, building), poolSize: 2 });
        try {
          await migrateDatabase(database);
        } catch (err) {
          await database.close();
          await admin.query(`drop database if exists "${building}"`);
          throw err;
        }
        await database.close();
        try {
          await admin.query(`alter database "${building}" rename to "${template}"`);
        } catch (err) {
          await admin.query(`drop database if exists "${building}"`);
          if ((err as { code?: string }).code !== "42P04") throw err;
        }
      }
    } finally {
      await admin.end();
    }
  }
  // The run's teardown: vitest does not run an afterAll registered from inside a beforeAll, which is
  // where most files call createTestDatabase, so their databases are dropped here, after the files.
  return async () => {
    fs.rmSync(process.env.TOLLGATE_TEST_CLI ?? "", { force: true });
    if (!url) return;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await dropIdleTestDatabases(admin);
    } finally {
      await admin.end();
    }
  };
}

/**
 * Drops the test files' databases nobody is connected to: at the start of a run those of runs
 * killed before their teardown long ago, at its end this run's (its files' processes have exited).
 * A run going on beside this one keeps its databases, also while none of its files is connected.
 */
async function dropIdleTestDatabases(admin: pg.Client): Promise<void> {
  const idle = await admin.query<{ datname: string }>(
    `select datname from pg_database d where datname like 'tollgate\\_t\\_%'
        and not exists (select 1 from pg_stat_activity a where a.datname = d.datname)`,
  );
  for (const { datname } of idle.rows) {
    if (mayDropTestDatabase(datname)) await admin.query(`drop database if exists "${datname}"`).catch(() => undefined);
  }
}

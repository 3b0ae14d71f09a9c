import crypto from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { afterAll } from "vitest";
import { openDatabase } from "../db/open";
import type { Database } from "../db/types";
import { adminUrl, pgTemplateName, pgliteTemplatePath, testDatabaseName } from "./template";

export type TestDbKind = "pglite" | "postgres";

export function testDbKind(): TestDbKind {
  return process.env.TEST_DB_KIND === "postgres" ? "postgres" : "pglite";
}

/**
 * A fresh, migrated database for one test file: PGlite from the template dump, or a new
 * PostgreSQL database cloned from the template (dropped after the file when called at its top
 * level; from a beforeAll, where vitest does not run the afterAll below, by the run's teardown in
 * global-setup.ts).
 */
export async function createTestDatabase(options: { poolSize?: number } = {}): Promise<Database & { url?: string }> {
  if (testDbKind() === "pglite") {
    const blob = new Blob([fs.readFileSync(pgliteTemplatePath())]);
    const database = await openDatabase({ kind: "pglite", loadDataDir: blob });
    afterAll(() => database.close());
    return database;
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("TEST_DB_KIND=postgres needs TEST_DATABASE_URL");
  const name = testDatabaseName();
  await withAdmin(url, async (admin) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database "${name}" template "${pgTemplateName()}"`);
        return;
      } catch (err) {
        // Two files cloning the template at the same instant: PostgreSQL refuses one; retry.
        if (attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  });
  const database = await openDatabase({ kind: "postgres", url: adminUrl(url, name), poolSize: options.poolSize ?? 10 });
  afterAll(async () => {
    await database.close();
    await withAdmin(url, (admin) => admin.query(`drop database if exists "${name}" with (force)`));
  });
  return { ...database, url: adminUrl(url, name) };
}

async function withAdmin<T>(url: string, fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

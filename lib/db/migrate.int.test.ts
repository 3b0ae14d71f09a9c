import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase, testDbKind } from "../testing/database";
import { adminUrl, testDatabaseName } from "../testing/template";
import { migrateDatabase, migrationsFolder } from "./migrate";
import { openDatabase } from "./open";
import { rows } from "./row-sql";
import type { Database } from "./types";
import { OPERATOR } from "../accounts/activity";
import { createAccount } from "../accounts/create-account";
import { verifyLedger } from "../audit/verify";

const migrationCount = fs.readdirSync(migrationsFolder).filter((f) => f.endsWith(".sql")).length;

async function migratedState(database: Database) {
  const [{ n }] = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`));
  const functions = rows<{ name: string }>(
    await database.db.execute(sql`SELECT proname AS name FROM pg_proc WHERE proname LIKE 'tg\\_%\\_lean' ORDER BY 1`),
  ).map((r) => r.name);
  return { migrations: n, functions };
}

const MIGRATED = { migrations: migrationCount, functions: ["tg_record_lean", "tg_reserve_lean", "tg_settle_lean"] };

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});

describe("migrateDatabase", () => {
  it("runs again on a migrated database without change", async () => {
    await migrateDatabase(database);
    expect(await migratedState(database)).toEqual(MIGRATED);
  });

  it("the seq constraint is validated on a clean database; on one already holding a row at 0 or below it keeps the row, refuses new ones (NOT VALID), and verify names the row", async () => {
    const constraints = async () =>
      rows<{ name: string; validated: boolean }>(
        await database.db.execute(sql`SELECT conname AS name, convalidated AS validated FROM pg_constraint WHERE conname LIKE '%\_seq\_positive' ORDER BY 1`),
      );
    expect(await constraints()).toEqual([
      { name: "account_activity_seq_positive", validated: true },
      { name: "credits_ledger_seq_positive", validated: true },
    ]);

    // A database written around the numbering before the migration: the migration is run on it again.
    const { account_id: accountId } = await createAccount(database.db, { name: "Numbered around", credits: "0", actor: OPERATOR });
    const row = (id: string, seq: number) => sql`
      INSERT INTO credits_ledger (id, seq, account_id, entry_type, amount_credits, source_system, balance_before, balance_after, ledger_metadata, description)
      VALUES (${id}, ${seq}, ${accountId}, 'grant_payment_recharge', 500, 'admin', 0, 500, '{"credit_kind": "paid"}', 'payment recharge')`;
    await database.db.execute(sql`ALTER TABLE credits_ledger DROP CONSTRAINT credits_ledger_seq_positive`);
    await database.db.execute(sql`ALTER TABLE account_activity DROP CONSTRAINT account_activity_seq_positive`);
    await database.db.execute(row("led_backdated", -6));
    const migration = fs.readdirSync(migrationsFolder).find((f) => f.endsWith("_seq_positive.sql"))!;
    await database.db.execute(sql.raw(fs.readFileSync(path.join(migrationsFolder, migration), "utf8")));

    expect(await constraints()).toEqual([
      { name: "account_activity_seq_positive", validated: true },
      { name: "credits_ledger_seq_positive", validated: false },
    ]);
    await expect(database.db.execute(row("led_backdated_again", -7))).rejects.toMatchObject({ cause: expect.objectContaining({ code: "23514" }) });
    const { violations } = await verifyLedger(database.db, { accountId });
    expect(violations).toContainEqual(expect.objectContaining({ check: "seq_positive", row: { log: "ledger", seq: -6, id: "led_backdated" } }));
  });

  if (testDbKind() === "postgres") {
    it("lets instances started together on one empty database take turns, then again on the migrated one", async () => {
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      const name = testDatabaseName();
      await admin.query(`create database "${name}"`);
      const instances = await Promise.all([0, 1, 2, 3].map(() => openDatabase({ kind: "postgres", url: adminUrl(process.env.TEST_DATABASE_URL!, name), poolSize: 2 })));
      try {
        // Each round: every instance migrates at once, as a cluster's instances do when started together.
        for (let round = 0; round < 2; round++) {
          const results = await Promise.allSettled(instances.map((d) => migrateDatabase(d)));
          expect(results.map((r) => (r.status === "rejected" ? String(r.reason?.cause ?? r.reason) : "ok"))).toEqual(["ok", "ok", "ok", "ok"]);
          expect(await migratedState(instances[0])).toEqual(MIGRATED);
        }
        // No lock is left behind: a new session takes it at once.
        const [{ got }] = rows<{ got: boolean }>(await instances[0].db.execute(sql`SELECT pg_try_advisory_lock(7201300) AS got`));
        expect(got).toBe(true);
      } finally {
        await Promise.all(instances.map((d) => d.close()));
        await admin.query(`drop database if exists "${name}" with (force)`);
        await admin.end();
      }
    });
  }
});

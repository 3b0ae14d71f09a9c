// `audit digest` and `audit verify --digests` through the real CLI, as an operator runs them: on
// PostgreSQL by URL, and on the embedded database through the running server's admin channel.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase, testDbKind } from "../testing/database";
import { runCli } from "../testing/cli-process";
import { openDatabase } from "../db/open";
import { migrateDatabase } from "../db/migrate";
import { startAdminChannel } from "../server/admin-channel";
import { OPERATOR } from "../accounts/activity";
import { createAccount } from "../accounts/create-account";
import type { Database } from "../db/types";

/** Each test starts the CLI in child processes (seconds each on a busy machine). */
const CHILD_PROCESSES = { timeout: 120_000 };

async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const r = await runCli(env, [...args, "--json"]);
  return { code: r.code, json: JSON.parse(r.stdout.trim().split("\n").pop() || "{}") };
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-digest-cli-"));
const digests = path.join(tmp, "digests");
// The server's settings (the admin channel runs the command in this process) and the CLI's alike.
const settings = { AUDIT_DIGEST_DIR: digests, AUDIT_DIGEST_KEY_FILE: path.join(tmp, "signing.pem") };
let env: Record<string, string>;
let database: Database;

beforeAll(async () => {
  Object.assign(process.env, settings);
  // An operator's key, made outside Tollgate.
  const { privateKey } = (await import("node:crypto")).generateKeyPairSync("ed25519");
  fs.writeFileSync(settings.AUDIT_DIGEST_KEY_FILE, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  if (testDbKind() === "postgres") {
    const db = await createTestDatabase();
    database = db;
    env = { ...settings, DATABASE_URL: db.url! };
    return;
  }
  database = await openDatabase({ kind: "pglite", dataDir: path.join(tmp, "pgdata") });
  await migrateDatabase(database);
  const closeAdmin = await startAdminChannel(database.db, tmp);
  env = { ...settings, DATA_DIR: tmp, DATABASE_URL: "" };
  afterAll(async () => {
    closeAdmin();
    await database.close();
  });
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe(`audit digest commands (${testDbKind()})`, () => {
  let accountId: string;
  let keyFile: string;

  it("audit digest signs the heads now; audit verify --digests DIR --public-key FILE exits 0 on an untouched database", CHILD_PROCESSES, async () => {
    accountId = (await createAccount(database.db, { name: "Digests", credits: "10", actor: OPERATOR })).account_id;
    const written = await cli(env, "audit", "digest");
    expect(written.code).toBe(0);
    expect(written.json).toMatchObject({ status: "written", location: digests, digests: [{ number: 1 }] });
    keyFile = path.join(digests, "keys", `${written.json.key_id as string}.pem`);
    // Relative paths are the operator's working directory's.
    const verified = await cli(env, "audit", "verify", "--digests", path.relative(process.cwd(), digests), "--public-key", keyFile);
    expect(verified.code).toBe(0);
    expect(verified.json).toMatchObject({ ok: true, violations: [], digests: { digests_checked: 1, keys_from: "--public-key", location: digests } });
  });

  it("exits 1 naming the entry rewritten behind the triggers' back and the digest it breaks; --public-key alone is a usage error", CHILD_PROCESSES, async () => {
    const entry = (await database.db.execute(sql`SELECT id FROM account_activity WHERE account_id = ${accountId} ORDER BY seq LIMIT 1`)) as unknown as { rows: { id: string }[] };
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL session_replication_role = replica`);
      await tx.execute(sql`UPDATE account_activity SET actor_label = 'someone else' WHERE id = ${entry.rows[0].id}`);
    });
    const broken = await cli(env, "audit", "verify", "--account", accountId, "--digests", digests, "--public-key", keyFile);
    expect(broken.code).toBe(1);
    expect(broken.json).toMatchObject({
      ok: false,
      violations: expect.arrayContaining([
        expect.objectContaining({ check: "digest_rows", digest: expect.stringMatching(/^digest-00000001-/), row: { log: "activity", seq: 1, id: entry.rows[0].id } }),
      ]),
    });
    expect((await cli(env, "audit", "verify", "--public-key", keyFile)).code).toBe(2);
  });

  it("issue 58: a backdated grant at seq -6 (the constraint dropped) is named, and a junk file at the next digest's place neither stops audit digest nor goes unreported", CHILD_PROCESSES, async () => {
    const victim = (await createAccount(database.db, { name: "Backdated", credits: "1", actor: OPERATOR })).account_id;
    const signedBy = (await cli(env, "audit", "digest")).json.digests as { name: string; number: number }[];
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`ALTER TABLE credits_ledger DROP CONSTRAINT credits_ledger_seq_positive`);
      await tx.execute(sql`
        INSERT INTO credits_ledger (id, seq, account_id, entry_type, amount_credits, source_system, balance_before, balance_after, ledger_metadata, description, created_at)
        VALUES ('led_backdated', -6, ${victim}, 'grant_payment_recharge', 1000, 'admin', 0, 1000, '{"credit_kind": "paid"}', 'payment recharge', now() - interval '3 days')`);
      await tx.execute(sql`ALTER TABLE credits_ledger ADD CONSTRAINT credits_ledger_seq_positive CHECK (seq > 0) NOT VALID`);
    });
    const junk = `digest-${String(signedBy[0].number + 1).padStart(8, "0")}-20000101T000000Z.json`;
    fs.writeFileSync(path.join(digests, junk), "junk");

    const next = await cli(env, "audit", "digest");
    expect(next.code).toBe(0);
    expect(next.json).toMatchObject({ status: "written", digests: [{ number: signedBy[0].number + 1 }], foreign: [junk] });

    const verified = await cli(env, "audit", "verify", "--account", victim, "--digests", digests, "--public-key", keyFile);
    expect(verified.code).toBe(1);
    expect(verified.json.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: "seq_positive", row: { log: "ledger", seq: -6, id: "led_backdated" } }),
        expect.objectContaining({ check: "digest_rows", digest: signedBy[0].name, row: { log: "ledger", seq: -6, id: "led_backdated" } }),
        expect.objectContaining({ check: "digest_foreign", digest: junk }),
      ]),
    );
  });
});

// Signed audit digests (issue 49): the attack that defeated `audit verify` — rewrite a row with the
// append-only triggers off, recompute every later hash with the code's own expression — repeated
// against the digests, and each way of tampering with the digests themselves.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { createAccount } from "../accounts/create-account";
import { rows } from "../db/row-sql";
import type { Db } from "../db/types";
import { OPERATOR, activityContent, chainedHash } from "../accounts/activity";
import { createApiKey } from "../auth/api-keys";
import { grantCredits } from "../billing/grant-credits";
import { verifyLedger } from "./verify";
import { verifyDigests } from "./digest-verify";
import { loadDigestSigningKey, digestPublicKey, keyIdOf, type DigestSigningKey } from "./digest-key";
import { dirDigestStore, type DigestStore } from "./digest-store";
import { rowFingerprint, ledgerContent, signDigest, writeAuditDigest, type DigestFile, type DigestsWritten } from "./digests";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-digests-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let db: Db;
let key: DigestSigningKey;
/** An account with history from before the first digest (the first test signs it). */
let first: { accountId: string; grants: string[] };
let store: DigestStore;
const dir = path.join(tmp, "digests");
const keyFile = path.join(tmp, "data", "audit-digest-key.pem");

beforeAll(async () => {
  db = (await createTestDatabase()).db;
  key = loadDigestSigningKey({ keyFile, generatedKey: true, store: { kind: "dir", dir } });
  store = dirDigestStore(dir);
  first = await accountWithHistory();
});

const publicKey = () => digestPublicKey(fs.readFileSync(path.join(dir, "keys", `${key.keyId}.pem`), "utf8"), "public key");

async function writeDigest(options: { rowLimit?: number; onlyIfDue?: boolean; on?: Db; into?: DigestStore } = {}) {
  return writeAuditDigest(options.on ?? db, { store: options.into ?? store, key, rowLimit: options.rowLimit, onlyIfDue: options.onlyIfDue });
}

async function written(options?: Parameters<typeof writeDigest>[0]): Promise<DigestsWritten> {
  const outcome = await writeDigest(options);
  if (outcome.status !== "written") throw new Error(`no digest written: ${outcome.status}`);
  return outcome;
}

/** The digest checks alone (the attack below goes through `verifyLedger`, as `audit verify --digests` does). */
async function verify(accountId: string | undefined, digests: { store?: DigestStore; publicKeys?: ReturnType<typeof publicKey>[] } = {}) {
  const report = await verifyDigests(db, { accountId, store: digests.store ?? store, publicKeys: digests.publicKeys });
  return { ok: report.violations.length === 0, violations: report.violations, digests: report.summary };
}

/** An account with ledger rows and activity entries written by the product's own verbs. */
async function accountWithHistory(grants: string[] = ["50", "7"]) {
  const { account_id: accountId } = await createAccount(db, { name: "Digest test", credits: "10", actor: OPERATOR });
  const ids: string[] = [];
  for (const amount of grants) ids.push((await grantCredits(db, { accountId, amount, type: "payment_recharge", actor: OPERATOR })).ledger_entry_id);
  await createApiKey(db, { accountId, name: "ci", actor: OPERATOR });
  return { accountId, grants: ids };
}

/** What an attacker with the database and without the key does: triggers off, then any statement. */
async function asAttacker(fn: (tx: Db) => Promise<void>) {
  await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL session_replication_role = replica`);
    await fn(tx as unknown as Db);
  });
}

/** Re-chains an account's activity log from `fromSeq` on, with the expression recordActivity writes with. */
async function recomputeActivityHashes(tx: Db, accountId: string, fromSeq: number) {
  const seqs = rows<{ seq: string | number }>(await tx.execute(sql`SELECT seq FROM account_activity WHERE account_id = ${accountId} AND seq >= ${fromSeq} ORDER BY seq`));
  for (const { seq } of seqs) {
    await tx.execute(sql`
      UPDATE account_activity a SET prev_hash = p.hash, hash = ${chainedHash(sql`p.hash`, activityContent("a"))}
        FROM (SELECT (SELECT hash FROM account_activity WHERE account_id = ${accountId} AND seq = ${Number(seq) - 1}) AS hash) p
       WHERE a.account_id = ${accountId} AND a.seq = ${Number(seq)}`);
  }
}

const readDigest = (name: string, from = dir) => JSON.parse(fs.readFileSync(path.join(from, name), "utf8")) as DigestFile;

/** A signing key that is not the writer's: an attacker's, or another installation's. */
function otherKey(): DigestSigningKey {
  const { privateKey, publicKey } = crypto.generateKeyPairSync("ed25519");
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), publicPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

/** Rows written where the database's numbering would never put them: the seq constraints dropped for the statements, then restored (NOT VALID). */
async function numberedAround(fn: (tx: Db) => Promise<void>) {
  await db.transaction(async (tx) => {
    for (const table of ["credits_ledger", "account_activity"]) await tx.execute(sql.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_seq_positive`));
    await fn(tx as unknown as Db);
    for (const table of ["credits_ledger", "account_activity"]) await tx.execute(sql.raw(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_seq_positive CHECK (seq > 0) NOT VALID`));
  });
}

/** A grant written by hand at `seq`, dated `ago` before now. */
const handGrant = (id: string, accountId: string, seq: number, ago = "0 seconds") => sql`
  INSERT INTO credits_ledger (id, seq, account_id, entry_type, amount_credits, source_system, balance_before, balance_after, ledger_metadata, description, created_at)
  VALUES (${id}, ${seq}, ${accountId}, 'grant_payment_recharge', 1000, 'admin', 0, 1000, '{"credit_kind": "paid"}', 'payment recharge', now() - ${ago}::interval)`;

/** A copy of the store to damage, leaving the real one intact. */
function copyOfStore(): { dir: string; store: DigestStore } {
  const copy = fs.mkdtempSync(path.join(tmp, "copy-"));
  fs.cpSync(dir, copy, { recursive: true });
  return { dir: copy, store: dirDigestStore(copy) };
}

describe("signed audit digests", () => {

  it("an untouched database verifies against its digests, signed with a key generated outside it", async () => {
    const one = await written();
    expect(one.digests).toEqual([{ name: expect.stringMatching(/^digest-00000001-\d{8}T\d{6}Z\.json$/), number: 1, created_at: expect.any(String), accounts: expect.any(Number), rows: expect.any(Number) }]);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.join(dir, "keys"))).toEqual([`${key.keyId}.pem`]);

    const report = await verify(undefined, { publicKeys: [publicKey()] });
    expect(report.violations).toEqual([]);
    expect(report).toMatchObject({ ok: true, digests: { digests_checked: 1, keys_from: "--public-key", trusted_keys: [key.keyId], rows_after_last_digest: 0 } });
    expect(report.digests!.rows_checked).toBeGreaterThanOrEqual(7);
    // Keys published beside the digests, when none is given.
    expect(await verify(first.accountId)).toMatchObject({ ok: true, digests: { keys_from: "store" } });

    // The hourly job finds this hour's digest written.
    expect(await writeDigest({ onlyIfDue: true })).toEqual({ status: "not_due" });
  });

  it("the next digest signs only what was written since the one before, and names that one and its SHA-256", async () => {
    const one = (await store.list("digest-"))[0];

    await grantCredits(db, { accountId: first.accountId, amount: "3", type: "payment_recharge", actor: OPERATOR });
    expect((await verify(first.accountId)).digests!.rows_after_last_digest).toBe(2);
    const two = await written();
    const digest = readDigest(two.digests[0].name);
    expect(digest).toMatchObject({ version: 1, number: 2, previous: { name: one, sha256: crypto.createHash("sha256").update(fs.readFileSync(path.join(dir, one))).digest("hex") }, key_id: key.keyId });
    expect(Object.keys(digest.accounts)).toEqual([first.accountId]);
    expect(digest.accounts[first.accountId].ledger!.rows).toHaveLength(1);
    expect(digest.accounts[first.accountId].activity!.rows).toHaveLength(1);
    expect(await verify(undefined, { publicKeys: [publicKey()] })).toMatchObject({ ok: true, violations: [] });
  });

  let attacked: { accountId: string; grants: string[]; entryId: string; digest: string };

  it("the attack: a row rewritten and every later hash recomputed passes verify alone, and verify against the digests names that row and the digest it breaks", async () => {
    const victim = await accountWithHistory();
    const signedBy = (await written()).digests[0].name;
    const entry = rows<{ id: string; seq: number | string }>(
      await db.execute(sql`SELECT id, seq FROM account_activity WHERE account_id = ${victim.accountId} AND object_id = ${victim.grants[0]}`),
    )[0];

    await asAttacker(async (tx) => {
      // The ledger: a 50-credit recharge becomes 500, and every later balance follows.
      const row = rows<{ seq: string }>(await tx.execute(sql`SELECT seq FROM credits_ledger WHERE id = ${victim.grants[0]}`))[0];
      await tx.execute(sql`
        UPDATE credits_ledger SET amount_credits = 500, balance_after = balance_after + 450, ledger_metadata = ledger_metadata || '{"note": "manual refund"}'
         WHERE id = ${victim.grants[0]}`);
      await tx.execute(sql`UPDATE credits_ledger SET balance_before = balance_before + 450, balance_after = balance_after + 450 WHERE account_id = ${victim.accountId} AND seq > ${row.seq}`);
      await tx.execute(sql`UPDATE credit_balances SET paid_credits = paid_credits + 450 WHERE account_id = ${victim.accountId}`);
      // The activity log: someone else granted it, and it was more; every later hash recomputed.
      await tx.execute(sql`
        UPDATE account_activity SET actor_label = 'support@tollgate.test', after = after || '{"amount_credits": "500"}'
         WHERE id = ${entry.id}`);
      await recomputeActivityHashes(tx, victim.accountId, Number(entry.seq));
    });

    const forged = rows<{ actor_label: string }>(await db.execute(sql`SELECT actor_label FROM account_activity WHERE id = ${entry.id}`))[0];
    expect(forged.actor_label).toBe("support@tollgate.test");
    // The gap this closes: the database's own checks cannot tell.
    expect(await verifyLedger(db, { accountId: victim.accountId })).toMatchObject({ ok: true, violations: [] });

    const report = await verifyLedger(db, { accountId: victim.accountId, digests: { store, publicKeys: [publicKey()] } });
    expect(report.ok).toBe(false);
    expect(report.violations).toEqual([
      {
        account_id: victim.accountId,
        check: "digest_rows",
        digest: signedBy,
        row: { log: "ledger", seq: expect.any(Number), id: victim.grants[0] },
        message: expect.stringMatching(new RegExp(`^ledger row ${victim.grants[0]} \\(account ${victim.accountId}, seq \\d+\\) differs from what digest ${signedBy} signed: it was changed after it was signed \\(1 more ledger row of this digest differs\\)$`)),
      },
      {
        account_id: victim.accountId,
        check: "digest_rows",
        digest: signedBy,
        row: { log: "activity", seq: Number(entry.seq), id: entry.id },
        message: `activity log entry ${entry.id} (account ${victim.accountId}, number ${entry.seq}) differs from what digest ${signedBy} signed: it was changed after it was signed`,
      },
    ]);
    // Other accounts are not implicated.
    expect(await verify(first.accountId, { publicKeys: [publicKey()] })).toMatchObject({ ok: true });
    attacked = { ...victim, entryId: entry.id, digest: signedBy };
  });

  it("rows are read many accounts to a statement, or one account a page at a time, with the same findings", async () => {
    const findings = async (accountId: string | undefined, pageSize?: number) =>
      (await verifyDigests(db, { store, accountId, pageSize, publicKeys: [publicKey()] })).violations;
    const expected = await findings(attacked.accountId);
    expect(expected).toHaveLength(2);
    for (const pageSize of [2, 3, 8]) expect(await findings(attacked.accountId, pageSize)).toEqual(expected);
    const everyone = await findings(undefined);
    expect(everyone).toEqual(expected);
    expect(await findings(undefined, 3)).toEqual(everyone);
  });

  it("a signed row deleted, a row inserted among signed ones, and one added later but dated before the digest are each named", async () => {
    // Rows of another account in between leave a gap in this account's seqs for the insert.
    const a = await accountWithHistory(["1"]);
    const b = await accountWithHistory(["1"]);
    await grantCredits(db, { accountId: a.accountId, amount: "2", type: "payment_recharge", actor: OPERATOR });
    const signedBy = (await written()).digests[0].name;
    const seqOf = async (id: string) => Number(rows<{ seq: string }>(await db.execute(sql`SELECT seq FROM credits_ledger WHERE id = ${id}`))[0].seq);
    const gap = Number(rows<{ seq: string }>(await db.execute(sql`SELECT min(seq) AS seq FROM credits_ledger WHERE account_id = ${b.accountId}`))[0].seq);
    const deleted = await seqOf(b.grants[0]);
    const lastOfA = Number(rows<{ seq: string }>(await db.execute(sql`SELECT max(seq) AS seq FROM credits_ledger WHERE account_id = ${a.accountId}`))[0].seq);

    const forgedRow = (id: string, accountId: string, seq: number | null, createdAt: string) => sql`
      INSERT INTO credits_ledger (id, ${seq === null ? sql`` : sql`seq,`} account_id, entry_type, amount_credits, source_system, balance_before, balance_after, ledger_metadata, description, created_at)
      VALUES (${id}, ${seq === null ? sql`` : sql`${seq},`} ${accountId}, 'grant_payment_recharge', 100, 'admin', 0, 100, '{"credit_kind": "paid"}', 'payment recharge', ${createdAt}::timestamptz)`;
    await asAttacker(async (tx) => {
      await tx.execute(forgedRow("led_forged_inserted", a.accountId, gap, new Date(Date.now() - 60_000).toISOString()));
      await tx.execute(sql`DELETE FROM credits_ledger WHERE id = ${b.grants[0]}`);
      await tx.execute(forgedRow("led_forged_backdated", first.accountId, null, new Date(Date.now() - 3_600_000).toISOString()));
    });

    const findings = async (accountId: string) => (await verify(accountId)).violations;
    expect(await findings(a.accountId)).toEqual([
      expect.objectContaining({
        check: "digest_rows",
        digest: signedBy,
        row: { log: "ledger", seq: gap, id: "led_forged_inserted" },
        message: `ledger row led_forged_inserted (account ${a.accountId}, seq ${gap}) is not among the rows digest ${signedBy} signed up to seq ${lastOfA}: it was inserted afterwards`,
      }),
    ]);
    expect(await findings(b.accountId)).toEqual([
      expect.objectContaining({
        check: "digest_rows",
        digest: signedBy,
        row: { log: "ledger", seq: deleted, id: null },
        message: `ledger row (account ${b.accountId}, seq ${deleted}), signed by digest ${signedBy}, is missing: it was deleted`,
      }),
    ]);
    expect(await findings(first.accountId)).toEqual([
      expect.objectContaining({
        check: "digest_coverage",
        digest: signedBy,
        row: { log: "ledger", seq: expect.any(Number), id: "led_forged_backdated" },
        message: expect.stringMatching(new RegExp(`^1 ledger row of account ${first.accountId} \\(the first: led_forged_backdated, seq \\d+\\) dated before digest ${signedBy} is signed by no digest: inserted afterwards$`)),
      }),
    ]);
    // The next digest signs what it finds, but the old date still gives the row away.
    const next = (await written()).digests[0].name;
    expect(await findings(first.accountId)).toEqual([
      expect.objectContaining({
        check: "digest_coverage",
        digest: next,
        row: { log: "ledger", seq: expect.any(Number), id: "led_forged_backdated" },
        message: expect.stringMatching(new RegExp(`^ledger row led_forged_backdated \\(account ${first.accountId}, seq \\d+\\) is dated before digest ${signedBy}, which did not sign it, and first signed by ${next}: it was inserted afterwards with an old date$`)),
      }),
    ]);
  });

  it("a digest deleted from the store is reported missing, and so is the latest one", async () => {
    const untouched = await accountWithHistory(["4"]);
    await written();
    await grantCredits(db, { accountId: untouched.accountId, amount: "1", type: "payment_recharge", actor: OPERATOR });
    const last = (await written()).digests[0];
    const names = (await store.list("digest-")).slice(-2);
    expect(names[1]).toBe(last.name);

    const gap = copyOfStore();
    fs.rmSync(path.join(gap.dir, names[0]), { force: true });
    const report = await verify(untouched.accountId, { store: gap.store, publicKeys: [publicKey()] });
    expect(report.ok).toBe(false);
    expect(report.violations).toEqual([
      expect.objectContaining({ check: "digest_chain", digest: names[1], message: expect.stringMatching(new RegExp(`^digest ${names[0]} is missing: ${names[1]} names ${names[0]} as its previous digest`)) }),
      // Its rows are then signed by no digest present.
      expect.objectContaining({ check: "digest_coverage", account_id: untouched.accountId, digest: names[1], message: expect.stringContaining("'s ledger rows after seq") }),
      expect.objectContaining({ check: "digest_coverage", account_id: untouched.accountId, digest: names[1], message: expect.stringContaining("'s activity log entries after number") }),
    ]);

    const cut = copyOfStore();
    fs.rmSync(path.join(cut.dir, names[1]), { force: true });
    expect((await verify(untouched.accountId, { store: cut.store, publicKeys: [publicKey()] })).violations).toEqual([
      expect.objectContaining({ check: "digest_chain", message: `digest ${names[1]} (number ${last.number}) was written but is not in ${cut.dir}, which ends at ${names[0]}: the latest digests are missing` }),
    ]);
  });

  it("a digest re-signed with another key to hide the attack is reported, and so is the link the next digest holds to it", async () => {
    const attackerKey = otherKey();
    // The attacker re-fingerprints the rows they rewrote, and signs the digest again.
    const forge = (copy: { dir: string }, signer: DigestSigningKey, keyId: string) => {
      const digest = readDigest(attacked.digest, copy.dir);
      const { signature: _s, ...body } = digest;
      const file = path.join(copy.dir, attacked.digest);
      // Digest files are read-only: the attacker replaces the file.
      const write = (b: typeof body) => {
        fs.rmSync(file);
        fs.writeFileSync(file, signDigest({ ...b, key_id: keyId }, signer));
      };
      return { body, write };
    };
    const current = rows<{ seq: string | number; fp: string }>(
      await db.execute(sql`SELECT seq, ${rowFingerprint(ledgerContent("t"))} AS fp FROM credits_ledger t WHERE account_id = ${attacked.accountId} ORDER BY seq`),
    );
    const refingerprint = (body: ReturnType<typeof forge>["body"]) => {
      const ledger = body.accounts[attacked.accountId].ledger!;
      ledger.rows = ledger.rows.map(([seq, fp]) => [seq, current.find((r) => Number(r.seq) === seq)?.fp ?? fp]);
      return body;
    };

    const other = copyOfStore();
    const f1 = forge(other, attackerKey, attackerKey.keyId);
    f1.write(refingerprint(f1.body));
    const next = (await other.store.list("digest-")).find((n) => n > attacked.digest)!;
    const report = await verify(attacked.accountId, { store: other.store, publicKeys: [publicKey()] });
    expect(report.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: "digest_signature", digest: attacked.digest, message: `digest ${attacked.digest} is signed by key ${attackerKey.keyId}, which is not a trusted key (${key.keyId}): it was re-signed` }),
        expect.objectContaining({ check: "digest_chain", digest: attacked.digest, message: expect.stringMatching(new RegExp(`^digest ${attacked.digest} is not the file ${next} signed as its previous`)) }),
      ]),
    );

    // Claiming the real key's id does not help: the signature does not verify with it.
    const claimed = copyOfStore();
    const f2 = forge(claimed, attackerKey, key.keyId);
    f2.write(refingerprint(f2.body));
    expect((await verify(attacked.accountId, { store: claimed.store, publicKeys: [publicKey()] })).violations).toEqual(
      expect.arrayContaining([expect.objectContaining({ check: "digest_signature", message: `digest ${attacked.digest}'s signature does not verify with key ${key.keyId}: it was altered or re-signed` })]),
    );

    // With the attacker's key published beside the digests and no --public-key, the next digest's link still gives it away.
    fs.writeFileSync(path.join(other.dir, "keys", `${attackerKey.keyId}.pem`), attackerKey.publicPem);
    const trusting = await verify(attacked.accountId, { store: other.store });
    expect(trusting.violations.map((v) => v.check)).toContain("digest_chain");
    expect(trusting.violations.map((v) => v.check)).not.toContain("digest_signature");

    // Something else in a digest's place is reported, not read.
    const garbled = copyOfStore();
    fs.rmSync(path.join(garbled.dir, attacked.digest));
    fs.writeFileSync(path.join(garbled.dir, attacked.digest), JSON.stringify({ version: 1, number: 3, accounts: { [attacked.accountId]: { ledger: { rows: null } } } }));
    expect((await verify(attacked.accountId, { store: garbled.store, publicKeys: [publicKey()] })).violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: "digest_signature", digest: attacked.digest, message: expect.stringMatching(/is not a version 1 digest numbered \d+: it was damaged or replaced$/) }),
        expect.objectContaining({ check: "digest_chain", digest: attacked.digest }),
      ]),
    );

    // The latest digest has no successor to vouch for it; the writer's record of what it wrote does.
    const latest = copyOfStore();
    const last = (await latest.store.list("digest-")).at(-1)!;
    const { signature: _s, ...body } = readDigest(last, latest.dir);
    fs.rmSync(path.join(latest.dir, last));
    fs.writeFileSync(path.join(latest.dir, last), signDigest({ ...body, accounts: {}, key_id: attackerKey.keyId }, attackerKey));
    fs.writeFileSync(path.join(latest.dir, "keys", `${attackerKey.keyId}.pem`), attackerKey.publicPem);
    expect((await verify(attacked.accountId, { store: latest.store })).violations).toEqual(
      expect.arrayContaining([expect.objectContaining({ check: "digest_chain", digest: last, message: expect.stringMatching(new RegExp(`^digest ${last} is not the file written as digest \\d+`)) })]),
    );
  });

  it("a long history is signed in several digests within the row limit; a digest whose commit failed, or the writer's whole record, is taken over from the store", async () => {
    const busy = await accountWithHistory(["1", "2", "3", "4", "5"]);
    const outcome = await written({ rowLimit: 4 });
    expect(outcome.digests.length).toBeGreaterThanOrEqual(3);
    for (const d of outcome.digests) expect(d.rows).toBeLessThanOrEqual(4);
    expect(await verify(busy.accountId, { publicKeys: [publicKey()] })).toMatchObject({ ok: true });

    await grantCredits(db, { accountId: busy.accountId, amount: "1", type: "payment_recharge", actor: OPERATOR });
    let lost: string | undefined;
    await expect(
      db.transaction(async (tx) => {
        lost = (await written({ on: tx as unknown as Db })).digests[0].name;
        throw new Error("the commit fails");
      }),
    ).rejects.toThrow("the commit fails");
    expect(fs.existsSync(path.join(dir, lost!))).toBe(true);
    const again = await written();
    expect(again.adopted).toEqual([lost]);
    expect(again.digests.every((d) => d.name > lost!)).toBe(true);
    expect(await verify(busy.accountId, { publicKeys: [publicKey()] })).toMatchObject({ ok: true, violations: [] });

    // The writer's record erased: it takes the whole chain over from the store, and carries on from its end.
    const chain = await store.list("digest-");
    await db.execute(sql`DELETE FROM audit_digest_heads`);
    await db.execute(sql`DELETE FROM audit_digest_state`);
    await grantCredits(db, { accountId: busy.accountId, amount: "1", type: "payment_recharge", actor: OPERATOR });
    const resumed = await written();
    expect(resumed.adopted).toEqual(chain);
    expect(resumed.digests).toEqual([expect.objectContaining({ number: chain.length + 1, accounts: 1, rows: 2 })]);
    expect(await verify(busy.accountId, { publicKeys: [publicKey()] })).toMatchObject({ ok: true, violations: [] });
  });

  it("the hourly job: of two instances due at once, one writes", async () => {
    await db.execute(sql`UPDATE audit_digest_state SET last_created_at = last_created_at - interval '1 hour'`);
    const outcomes = await Promise.all([writeDigest({ onlyIfDue: true }), writeDigest({ onlyIfDue: true })]);
    expect(outcomes.filter((o) => o.status === "written")).toHaveLength(1);
    expect(outcomes.map((o) => o.status).sort()).toEqual([expect.stringMatching(/^(busy|not_due)$/), "written"]);
  });

  it("rows numbered 0 and below are signed from the account's lowest row; one written below a signed account's first row is named, and by verify alone too", async () => {
    // Before the account's first digest: the digest signs them, and a change to one is then named.
    const early = await accountWithHistory(["1"]);
    await numberedAround(async (tx) => {
      await tx.execute(handGrant("led_at_minus_six", early.accountId, -6));
      await tx.execute(sql`INSERT INTO account_activity (account_id, seq, id, actor_type, action, hash) VALUES (${early.accountId}, 0, 'act_at_zero', 'user', 'credits.granted', 'forged')`);
    });
    const signedBy = (await written()).digests[0].name;
    const { ledger, activity } = readDigest(signedBy).accounts[early.accountId];
    expect(ledger).toMatchObject({ from_seq: 0, rows: [[-6, expect.any(String)], ...ledger!.rows.slice(1)] });
    expect(activity).toMatchObject({ from_seq: 0, rows: [[0, expect.any(String)], [1, expect.any(String)], ...activity!.rows.slice(2)] });
    // Signed, so the digests find nothing; the invariants name both rows (and the balance the grant did not move).
    expect((await verify(early.accountId, { publicKeys: [publicKey()] })).violations).toEqual([]);
    const signed = await verifyLedger(db, { accountId: early.accountId, digests: { store, publicKeys: [publicKey()] } });
    expect(signed.violations.map((v) => [v.check, v.row])).toEqual([
      ["balance_equals_ledger", undefined],
      ["ledger_chain", undefined],
      ["seq_positive", { log: "ledger", seq: -6, id: "led_at_minus_six" }],
      ["seq_positive", { log: "activity", seq: 0, id: "act_at_zero" }],
    ]);
    await numberedAround(async (tx) => {
      await tx.execute(sql`SET LOCAL session_replication_role = replica`);
      await tx.execute(sql`UPDATE credits_ledger SET amount_credits = 5000, balance_after = 5000 WHERE id = 'led_at_minus_six'`);
    });
    expect((await verify(early.accountId, { publicKeys: [publicKey()] })).violations).toEqual([
      expect.objectContaining({ check: "digest_rows", digest: signedBy, row: { log: "ledger", seq: -6, id: "led_at_minus_six" } }),
    ]);

    // The finding: a backdated grant at seq -6 in an account already signed. No later digest signs it; verify names it.
    const signedAccount = await accountWithHistory(["2"]);
    const firstDigest = (await written()).digests[0].name;
    const lastSeq = readDigest(firstDigest).accounts[signedAccount.accountId].ledger!.last_seq;
    await numberedAround((tx) => tx.execute(handGrant("led_backdated_grant", signedAccount.accountId, -6, "1 hour")).then(() => undefined));
    await grantCredits(db, { accountId: signedAccount.accountId, amount: "1", type: "payment_recharge", actor: OPERATOR });
    const next = (await written()).digests[0].name;
    expect(readDigest(next).accounts[signedAccount.accountId].ledger!.rows.map(([seq]) => seq)).not.toContain(-6);
    const report = await verifyLedger(db, { accountId: signedAccount.accountId, digests: { store, publicKeys: [publicKey()] } });
    expect(report.ok).toBe(false);
    expect(report.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ check: "seq_positive", row: { log: "ledger", seq: -6, id: "led_backdated_grant" } }),
        {
          account_id: signedAccount.accountId,
          check: "digest_rows",
          digest: firstDigest,
          row: { log: "ledger", seq: -6, id: "led_backdated_grant" },
          message: `ledger row led_backdated_grant (account ${signedAccount.accountId}, seq -6) is not among the rows digest ${firstDigest} signed up to seq ${lastSeq}: it was inserted afterwards`,
        },
      ]),
    );
    // Read a page at a time, the same finding.
    expect((await verifyDigests(db, { store, accountId: signedAccount.accountId, pageSize: 2, publicKeys: [publicKey()] })).violations).toEqual(
      (await verifyDigests(db, { store, accountId: signedAccount.accountId, publicKeys: [publicKey()] })).violations,
    );
  });

  it("files the writer did not write (junk, a truncated digest, one signed by another key, a copy, a misnamed file) are each reported, and signing goes on from the writer's own chain", async () => {
    const account = await accountWithHistory(["3"]);
    const chain = await store.list("digest-");
    const last = chain.at(-1)!;
    const number = chain.length + 1;
    const place = (n: number, stamp: string) => `digest-${String(n).padStart(8, "0")}-${stamp}.json`;
    const drop = (name: string, text: string | Buffer) => fs.writeFileSync(path.join(dir, name), text);
    const lastBytes = fs.readFileSync(path.join(dir, last));
    const stranger = otherKey();
    const foreignFiles = {
      junk: place(number, "20000101T000000Z"),
      otherKey: place(number, "20000101T000001Z"),
      truncated: place(number - 1, "20000101T000000Z"),
      copy: place(number - 2, "20000101T000000Z"),
      farAhead: place(99_999_999, "20000101T000000Z"),
      misnamed: "digest-notes.txt",
    };
    drop(foreignFiles.junk, "not a digest");
    drop(
      foreignFiles.otherKey,
      signDigest({ version: 1, number, created_at: new Date().toISOString(), previous: { name: last, sha256: crypto.createHash("sha256").update(lastBytes).digest("hex") }, key_id: stranger.keyId, accounts: {} }, stranger),
    );
    drop(foreignFiles.truncated, lastBytes.subarray(0, 100));
    drop(foreignFiles.copy, fs.readFileSync(path.join(dir, chain.at(-2)!)));
    drop(foreignFiles.farAhead, "{}");
    drop(foreignFiles.misnamed, "");

    const outcome = await written();
    expect(outcome.digests).toEqual([expect.objectContaining({ number, accounts: 1 })]);
    expect(outcome.foreign).toEqual([foreignFiles.junk, foreignFiles.otherKey]);
    await grantCredits(db, { accountId: account.accountId, amount: "1", type: "payment_recharge", actor: OPERATOR });
    const then = (await written()).digests;
    expect(then).toEqual([expect.objectContaining({ number: number + 1, rows: 2 })]);

    const report = await verify(undefined, { publicKeys: [publicKey()] });
    const notInChain = (name: string, why: string) => ({ account_id: "", check: "digest_foreign", digest: name, message: `${name} in ${dir} is not part of the digest chain: ${why}` });
    expect(report.violations.filter((v) => v.check !== "digest_coverage" && v.check !== "digest_rows")).toEqual([
      notInChain(foreignFiles.misnamed, "its name is not a digest's (digest-NNNNNNNN-YYYYMMDDTHHMMSSZ.json)"),
      notInChain(foreignFiles.copy, `it is signed by a trusted key but not under the name the writer gave it: a copy; the chain's digest ${number - 2} is ${chain[number - 3]}`),
      notInChain(foreignFiles.truncated, `it is not a version 1 digest numbered ${number - 1} (not JSON, truncated, or another shape); the chain's digest ${number - 1} is ${last}`),
      notInChain(foreignFiles.junk, `it is not a version 1 digest numbered ${number} (not JSON, truncated, or another shape); the chain's digest ${number} is ${outcome.digests[0].name}`),
      notInChain(foreignFiles.otherKey, `it is not signed by a trusted key (${key.keyId}); the chain's digest ${number} is ${outcome.digests[0].name}`),
      notInChain(foreignFiles.farAhead, `it is not a version 1 digest numbered 99999999 (not JSON, truncated, or another shape)`),
    ]);
    // The rest of the chain is checked as before: only the accounts earlier tests tampered with have findings.
    expect(report.digests).toMatchObject({ digests_checked: number + 1, latest: { name: then[0].name } });
    expect(await verify(account.accountId, { publicKeys: [publicKey()] })).toMatchObject({ violations: report.violations.filter((v) => v.check === "digest_foreign") });

    // The writer's record erased: it takes its own chain over past the files it did not write.
    await db.execute(sql`DELETE FROM audit_digest_heads`);
    await db.execute(sql`DELETE FROM audit_digest_state`);
    const resumed = await written();
    expect(resumed).toMatchObject({ digests: [expect.objectContaining({ number: number + 2, rows: 0 })], foreign: [foreignFiles.copy, foreignFiles.truncated, foreignFiles.junk, foreignFiles.otherKey] });
    expect(resumed.adopted).toEqual([...chain, outcome.digests[0].name, then[0].name]);
    expect((await verify(account.accountId, { publicKeys: [publicKey()] })).violations.map((v) => v.check)).toEqual(Array(6).fill("digest_foreign"));
  });
});

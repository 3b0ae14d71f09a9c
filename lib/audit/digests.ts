// Signed audit digests (issue 49): tamper evidence for the credits ledger and the activity log
// that needs a key the database does not hold. Each digest lists, per account and log, the rows
// written since the previous digest (seq and a fingerprint of each row's content) and the chained
// head over them; it names the previous digest's file and SHA-256, and is signed with Ed25519.
// Digests go to a directory or a bucket (lib/audit/digest-store.ts), never into the database;
// `audit verify --digests` (lib/audit/digest-verify.ts) checks the rows against them. docs/audit.md
// says what this protects against and what it cannot.
import crypto from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { auditDigestConfig, type AuditDigestConfig } from "../env";
import { activityContent } from "../accounts/activity";
import { loadDigestSigningKey, type DigestSigningKey } from "./digest-key";
import { configuredDigestStore, type DigestStore } from "./digest-store";
import { canonicalJson } from "./canonical-json";
import { startTicker } from "../ticker";

export const DIGEST_VERSION = 1;
export const digestLogNames = ["ledger", "activity"] as const;
export type DigestLogName = (typeof digestLogNames)[number];

/**
 * The text a ledger row's fingerprint covers, from its columns (alias `t`): every column, amounts
 * as their exact decimal text, jsonb in its canonical text form, the time in UTC.
 */
export function ledgerContent(t: string): SQL {
  const c = (name: string) => sql.raw(`${t}.${name}`);
  return sql`jsonb_build_array(${c("account_id")}, ${c("seq")}, ${c("id")}, ${c("entry_type")}, ${c("amount_credits")}::text,
      ${c("source_system")}, ${c("source_ref_type")}, ${c("source_ref_id")}, ${c("execution_id")}, ${c("usage_event_id")}::text, ${c("api_key_id")}::text,
      ${c("pre_settlement_bill")}, ${c("settlement_result")}, ${c("balance_before")}::text, ${c("balance_after")}::text, ${c("ledger_metadata")},
      ${c("description")}, to_char(${c("created_at")} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text`;
}

/** Per log: its table, the content its fingerprints cover, and how a message names one of its rows. */
export const digestLogs: Record<DigestLogName, { table: SQL; content: (t: string) => SQL; noun: string; nouns: string; position: string }> = {
  ledger: { table: sql.raw("credits_ledger"), content: ledgerContent, noun: "ledger row", nouns: "ledger rows", position: "seq" },
  activity: { table: sql.raw("account_activity"), content: activityContent, noun: "activity log entry", nouns: "activity log entries", position: "number" },
};

/** A row's fingerprint: the first 128 bits of the SHA-256 of its content, in hex. */
export function rowFingerprint(content: SQL): SQL {
  return sql`left(encode(sha256(convert_to(${content}, 'UTF8')), 'hex'), 32)`;
}

/** The chained head after a row: SHA-256 of the previous head ("" before the first row), its seq and fingerprint. */
export function chainHead(previous: string, seq: number, fingerprint: string): string {
  return crypto.createHash("sha256").update(`${previous}|${seq}:${fingerprint}`).digest("hex");
}

/**
 * An account's rows of one log signed by a digest: those after `from_seq` up to `last_seq`. Its
 * first segment has `from_seq` 0 and signs every row up to `last_seq`, from the lowest: rows at 0
 * and below are refused by the database, but a writer who can get round that gets them signed too.
 */
export interface DigestSegment {
  from_seq: number;
  last_seq: number;
  head: string;
  /** [seq, fingerprint] in seq order. */
  rows: [number, string][];
}

export interface DigestBody {
  version: number;
  number: number;
  created_at: string;
  previous: { name: string; sha256: string } | null;
  key_id: string;
  /** Accounts whose logs grew since the previous digest; an account's head is in the last digest naming it. */
  accounts: Record<string, Partial<Record<DigestLogName, DigestSegment>>>;
}

export interface DigestFile extends DigestBody {
  /** Ed25519 over canonicalJson of every other field, base64. */
  signature: string;
}

const segmentSchema = z.object({
  from_seq: z.number().int(),
  last_seq: z.number().int(),
  head: z.string(),
  rows: z.array(z.tuple([z.number().int(), z.string()])),
});
const digestFileSchema = z.object({
  version: z.literal(1),
  number: z.number().int().min(1),
  created_at: z.string().datetime(),
  previous: z.object({ name: z.string(), sha256: z.string() }).nullable(),
  key_id: z.string(),
  accounts: z.record(z.string(), z.object({ ledger: segmentSchema.optional(), activity: segmentSchema.optional() })),
  signature: z.string(),
});

/** A digest file's content, if it is a digest numbered `number`: anything else in a digest's place is reported, never read. */
export function parseDigest(bytes: Buffer, number: number): DigestFile | undefined {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  // The file as written, not zod's copy: the signature covers every field, known or not.
  return digestFileSchema.safeParse(json).success && (json as DigestFile).number === number ? (json as DigestFile) : undefined;
}

/** Whether the digest's signature verifies with this public key. */
export function signedWith(digest: DigestFile, publicKey: crypto.KeyObject): boolean {
  return crypto.verify(null, signedBytes(digest), publicKey, Buffer.from(digest.signature, "base64"));
}

/** Whether the digest names `previous` (its file name and SHA-256) as the one before it; null: it is the first. */
export function follows(digest: DigestFile, previous: { name: string; sha256: string } | null): boolean {
  return previous ? digest.previous?.name === previous.name && digest.previous.sha256 === previous.sha256 : digest.previous === null;
}

/** Whether a file has the name the writer gave the digest in it (its number and creation time): a copy under another name has not. */
export const underOwnName = (name: string, digest: DigestFile) => name === digestName(digest.number, new Date(digest.created_at));

export function signedBytes(digest: DigestBody | DigestFile): Buffer {
  const { signature: _signature, ...body } = digest as DigestFile;
  return Buffer.from(canonicalJson(body));
}

/** The digest file's text: the body and its signature. */
export function signDigest(body: DigestBody, key: DigestSigningKey): string {
  const signature = crypto.sign(null, signedBytes(body), key.privateKey).toString("base64");
  return `${JSON.stringify({ ...body, signature } satisfies DigestFile)}\n`;
}

export const sha256Hex = (bytes: Buffer | string) => crypto.createHash("sha256").update(bytes).digest("hex");

/** `digest-00000042-20261201T130000Z.json`: sorted by number, dated for people. */
export function digestName(number: number, createdAt: Date): string {
  const stamp = createdAt.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return `${DIGEST_NAME_PREFIX}${String(number).padStart(8, "0")}-${stamp}.json`;
}
export const DIGEST_NAME_PREFIX = "digest-";
export const DIGEST_NAME = /^digest-(\d{8})-\d{8}T\d{6}Z\.json$/;
export const publicKeyName = (keyId: string) => `keys/${keyId}.pem`;

/** Rows fingerprinted per digest at most: the first digest of a large history is written in several. */
export const DIGEST_ROW_LIMIT = 100_000;
const PAGE = 5000;

export interface WrittenDigest {
  name: string;
  number: number;
  created_at: string;
  accounts: number;
  rows: number;
}

export interface DigestsWritten {
  status: "written";
  location: string;
  key_id: string;
  digests: WrittenDigest[];
  /** Digests found in the store that the database had not recorded (a commit that failed after the write). */
  adopted: string[];
  /** Files named like the chain's next digest that this writer did not write: left as they are, for `audit verify` to report. */
  foreign: string[];
}
export type DigestOutcome = { status: "busy" | "not_due" } | DigestsWritten;

export interface WriteDigestOptions {
  config?: AuditDigestConfig;
  store?: DigestStore;
  key?: DigestSigningKey;
  /** Only when no digest was written in this clock hour yet (the hourly job); else now. */
  onlyIfDue?: boolean;
  rowLimit?: number;
}

interface State {
  last_number: number;
  last_name: string;
  last_sha256: string;
  due: boolean;
}

interface Pending {
  account_id: string;
  log: DigestLogName;
  last_seq: string | number | null;
  head: string | null;
  max_seq: string | number;
}

/**
 * Writes digests until every row written so far is signed (one, unless the history to catch up
 * on exceeds `rowLimit` rows). One instance at a time (a transaction try-lock; another instance
 * writing: `busy`). Each digest is created in the store before its transaction commits; should the
 * commit fail, the next run finds it there and takes its heads over instead of writing it again.
 */
export async function writeAuditDigest(db: Db, options: WriteDigestOptions = {}): Promise<DigestOutcome> {
  const config = options.config ?? auditDigestConfig();
  const store = options.store ?? configuredDigestStore(config);
  const key = options.key ?? loadDigestSigningKey(config);
  const written: WrittenDigest[] = [];
  const adopted: string[] = [];
  const foreign: string[] = [];
  for (let guard = 0; guard < 10_000; guard++) {
    const step = await db.transaction((tx) => digestStep(tx as unknown as Db, store, key, { onlyIfDue: options.onlyIfDue === true && written.length === 0, rowLimit: options.rowLimit ?? DIGEST_ROW_LIMIT }));
    if (step.status !== "written" && step.status !== "adopted") return written.length + adopted.length > 0 ? done() : { status: step.status };
    foreign.push(...step.foreign);
    if (step.status === "adopted") adopted.push(step.name);
    else written.push(step.digest);
    if (step.status === "written" && step.complete) return done();
  }
  return done();

  function done(): DigestsWritten {
    return { status: "written", location: store.location, key_id: key.keyId, digests: written, adopted, foreign };
  }
}

type Step =
  | { status: "busy" | "not_due" }
  | { status: "adopted"; name: string; foreign: string[] }
  | { status: "written"; digest: WrittenDigest; complete: boolean; foreign: string[] };

async function digestStep(tx: Db, store: DigestStore, key: DigestSigningKey, o: { onlyIfDue: boolean; rowLimit: number }): Promise<Step> {
  const locked = rows<{ ok: boolean }>(await tx.execute(sql`SELECT pg_try_advisory_xact_lock(hashtextextended('tollgate.audit_digest', 0)) AS ok`))[0];
  if (!locked.ok) return { status: "busy" };
  const state = rows<State>(
    await tx.execute(sql`SELECT last_number, last_name, last_sha256, last_created_at < date_trunc('hour', now(), 'UTC') AS due FROM audit_digest_state WHERE id = 1`),
  )[0] as State | undefined;
  if (o.onlyIfDue && state && !state.due) return { status: "not_due" };
  const number = (state?.last_number ?? 0) + 1;

  // A digest of this number already in the store is taken over if it is this writer's; anything else there is not, and is left.
  const foreign: string[] = [];
  for (const name of (await store.list(`${DIGEST_NAME_PREFIX}${String(number).padStart(8, "0")}-`)).filter((n) => DIGEST_NAME.test(n))) {
    const bytes = await store.read(name);
    const digest = bytes && parseDigest(bytes, number);
    if (digest && ownDigest(name, digest, key, state)) {
      await recordDigest(tx, digest, name, sha256Hex(bytes));
      return { status: "adopted", name, foreign };
    }
    foreign.push(name);
  }

  const createdAt = new Date(rows<{ now: string | Date }>(await tx.execute(sql`SELECT now() AS now`))[0].now);
  // Per account and log, index lookups only: the last row, and where the last digest stopped (none: from the lowest row).
  const pending = rows<Pending>(
    await tx.execute(sql`
      SELECT a.id AS account_id, l.log, h.last_seq, h.head, l.max_seq
        FROM accounts a
        CROSS JOIN LATERAL (SELECT 'ledger' AS log, (SELECT max(seq) FROM credits_ledger WHERE account_id = a.id) AS max_seq
                            UNION ALL SELECT 'activity', (SELECT max(seq) FROM account_activity WHERE account_id = a.id)) l
        LEFT JOIN audit_digest_heads h ON h.account_id = a.id AND h.log = l.log
       WHERE l.max_seq IS NOT NULL AND (h.last_seq IS NULL OR l.max_seq > h.last_seq)
       ORDER BY a.id, l.log`),
  );
  const accounts: DigestBody["accounts"] = {};
  let budget = o.rowLimit;
  let complete = true;
  for (const p of pending) {
    if (budget === 0) {
      complete = false;
      break;
    }
    const log = digestLogs[p.log];
    const from = p.last_seq === null ? null : Number(p.last_seq);
    const max = Number(p.max_seq);
    const segment: DigestSegment = { from_seq: from ?? 0, last_seq: from ?? 0, head: p.head ?? "", rows: [] };
    for (let after = from; ; ) {
      const page = rows<{ seq: string | number; fp: string }>(
        await tx.execute(sql`
          SELECT t.seq, ${rowFingerprint(log.content("t"))} AS fp FROM ${log.table} t
           WHERE t.account_id = ${p.account_id} AND ${after === null ? sql`true` : sql`t.seq > ${after}`} AND t.seq <= ${max}
           ORDER BY t.seq LIMIT ${Math.min(PAGE, budget)}`),
      );
      for (const r of page) {
        const seq = Number(r.seq);
        segment.rows.push([seq, r.fp]);
        segment.head = chainHead(segment.head, seq, r.fp);
        segment.last_seq = after = seq;
      }
      budget -= page.length;
      if (after === null || after >= max || page.length === 0) break;
      if (budget === 0) {
        complete = false;
        break;
      }
    }
    if (segment.rows.length > 0) (accounts[p.account_id] ??= {})[p.log] = segment;
  }

  const body: DigestBody = {
    version: DIGEST_VERSION,
    number,
    created_at: createdAt.toISOString(),
    previous: state ? { name: state.last_name, sha256: state.last_sha256 } : null,
    key_id: key.keyId,
    accounts,
  };
  const text = signDigest(body, key);
  const name = digestName(number, createdAt);
  await store.create(publicKeyName(key.keyId), key.publicPem);
  if (!(await store.create(name, text))) throw new Error(`audit digest ${name} already exists in ${store.location}: another writer uses this store`);
  await recordDigest(tx, body, name, sha256Hex(text));
  const rowCount = Object.values(accounts).reduce((n, logs) => n + Object.values(logs).reduce((m, s) => m + s.rows.length, 0), 0);
  return { status: "written", digest: { name, number, created_at: body.created_at, accounts: Object.keys(accounts).length, rows: rowCount }, complete, foreign };
}

/** Moves the writer's state past a digest: its heads, and it as the previous of the next. */
async function recordDigest(tx: Db, body: DigestBody, name: string, sha256: string): Promise<void> {
  const heads = Object.entries(body.accounts).flatMap(([accountId, logs]) =>
    Object.entries(logs).map(([log, s]) => ({ account_id: accountId, log, last_seq: s.last_seq, head: s.head })),
  );
  if (heads.length > 0) {
    await tx.execute(sql`
      INSERT INTO audit_digest_heads (account_id, log, last_seq, head, digest_number)
      SELECT h.account_id, h.log, h.last_seq, h.head, ${body.number}
        FROM jsonb_to_recordset(${JSON.stringify(heads)}::jsonb) AS h(account_id text, log text, last_seq bigint, head text)
      ON CONFLICT (account_id, log) DO UPDATE SET last_seq = excluded.last_seq, head = excluded.head, digest_number = excluded.digest_number`);
  }
  await tx.execute(sql`
    INSERT INTO audit_digest_state (id, last_number, last_name, last_sha256, last_created_at)
    VALUES (1, ${body.number}, ${name}, ${sha256}, ${body.created_at}::timestamptz)
    ON CONFLICT (id) DO UPDATE SET last_number = excluded.last_number, last_name = excluded.last_name, last_sha256 = excluded.last_sha256,
                                   last_created_at = excluded.last_created_at, updated_at = now()`);
}

/**
 * A digest in the store is this writer's (one whose commit failed, or a chain whose record was
 * erased) when its key signed it, it names the last digest the database recorded, and it has the
 * name the writer gave it (a copy under another name is not the one the next digest names).
 */
function ownDigest(name: string, digest: DigestFile, key: DigestSigningKey, state: State | undefined): boolean {
  const recorded = state ? { name: state.last_name, sha256: state.last_sha256 } : null;
  return follows(digest, recorded) && underOwnName(name, digest) && digest.key_id === key.keyId && signedWith(digest, key.publicKey);
}

const TICK_MS = 5 * 60_000;
const FIRST_TICK_MS = 60_000;

/**
 * The hourly job: every instance ticks every five minutes, and the first tick in a clock hour
 * that finds no digest written in it writes one (the others find it written, or the lock taken).
 */
export function startAuditDigests(db: Db, on: { written?: (outcome: DigestsWritten) => void; error?: (err: Error) => void } = {}): () => void {
  return startTicker(() => writeAuditDigest(db, { onlyIfDue: true }), { firstMs: FIRST_TICK_MS, everyMs: TICK_MS }, {
    result: (outcome) => {
      if (outcome.status === "written") on.written?.(outcome);
    },
    error: on.error,
  });
}

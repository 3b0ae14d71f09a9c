// `audit verify --digests`: the rows of the credits ledger and the activity log checked against the
// signed digests (lib/audit/digests.ts), trusting nothing the database says about them. Digests are
// read one at a time in chain order, and each signed segment is compared with the account's rows
// read in seq order, a page at a time: memory holds one digest, never a table.
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import type { Violation } from "./violation";
import { digestPublicKey, type DigestPublicKey } from "./digest-key";
import type { DigestStore } from "./digest-store";
import {
  chainHead,
  DIGEST_NAME,
  DIGEST_NAME_PREFIX,
  digestLogNames,
  digestLogs,
  follows,
  parseDigest,
  rowFingerprint,
  sha256Hex,
  signedWith,
  underOwnName,
  type DigestFile,
  type DigestLogName,
  type DigestSegment,
} from "./digests";

export const digestChecks = ["digest_signature", "digest_chain", "digest_rows", "digest_coverage", "digest_foreign"] as const;

/** A row committed this long after its transaction began (created_at) is not expected: the ledger's and the log's writes are short. */
export const LATE_COMMIT_MARGIN_MS = 10 * 60_000;
const PAGE = 5000;

export interface DigestVerifyOptions {
  store: DigestStore;
  /** Trusted keys; unset: those published in the store's keys/ folder (then the store is trusted to hold only genuine ones). */
  publicKeys?: DigestPublicKey[];
  accountId?: string;
  /** Violations reported per check. */
  limit?: number;
  /** Rows read per statement (tests make it small to walk every path). */
  pageSize?: number;
}

export interface DigestSummary {
  location: string;
  /** Digests of the chain read (files the writer did not write are reported as digest_foreign, not counted). */
  digests_checked: number;
  latest: { name: string; created_at: string } | null;
  /** The keys signatures were checked with, and where they came from. */
  trusted_keys: string[];
  keys_from: "--public-key" | "store";
  rows_checked: number;
  /** Rows written since the last digest: no digest vouches for them yet. */
  rows_after_last_digest: number;
}

export interface DigestReport {
  summary: DigestSummary;
  violations: Violation[];
  truncated: string[];
}

interface Head {
  seq: number;
  head: string;
  digest: string;
}

interface Signed {
  account: string;
  segment: DigestSegment;
  /** The account's first segment in this log: it signs every row up to its last_seq, from the lowest. */
  first: boolean;
}

interface DbRow {
  seq: string | number;
  id: string;
  late: boolean;
  fp: string;
}

/** The digest whose segments are being compared, and when the one before it was written. */
interface DigestInView {
  name: string;
  /** Rows dated before this (the previous digest's time less the commit margin) should have been signed by it. */
  lateBefore: string | null;
  previousName?: string;
}

interface Previous {
  number: number;
  name: string;
  sha256: string;
}

/**
 * A file at one place of the chain, ranked by how far it is the writer's: not a digest, signed by
 * no trusted key, signed but not following the chain's previous digest or not under the name the
 * writer gave it (a copy), or all of these.
 */
interface Candidate {
  name: string;
  rank: 0 | 1 | 2 | 3;
  sha256: string;
  digest?: DigestFile;
}
const GENUINE = 3;

/** The bigint below every seq: a first segment's rows are read from there. */
const LOWEST_SEQ = sql.raw("'-9223372036854775808'::bigint");

export async function verifyDigests(db: Db, options: DigestVerifyOptions): Promise<DigestReport> {
  const { store, accountId } = options;
  const limit = options.limit ?? 100;
  const pageSize = options.pageSize ?? PAGE;
  const half = Math.floor(pageSize / 2);
  // Rows a batched read takes beyond what a small segment signed before it reads that account page by page.
  const extra = Math.max(1, Math.floor(pageSize / 50));
  const violations: Violation[] = [];
  const counts = new Map<string, number>();
  const report = (check: (typeof digestChecks)[number], v: Omit<Violation, "check">) => {
    counts.set(check, (counts.get(check) ?? 0) + 1);
    const { account_id: accountOf, ...rest } = v;
    if (counts.get(check)! <= limit) violations.push({ account_id: accountOf, check, ...rest });
  };

  const keys = new Map<string, DigestPublicKey>();
  const given = options.publicKeys !== undefined;
  for (const k of options.publicKeys ?? (await publishedKeys(store))) keys.set(k.keyId, k);
  if (keys.size === 0) report("digest_signature", { account_id: "", message: `no public key to check signatures with: none given and none in ${store.location}keys/` });

  const listed = await store.list(DIGEST_NAME_PREFIX);
  for (const name of listed.filter((n) => !DIGEST_NAME.test(n))) foreign(name, "its name is not a digest's (digest-NNNNNNNN-YYYYMMDDTHHMMSSZ.json)");
  const places = new Map<number, string[]>();
  for (const name of listed.filter((n) => DIGEST_NAME.test(n))) {
    const number = Number(DIGEST_NAME.exec(name)![1]);
    places.set(number, [...(places.get(number) ?? []), name]);
  }

  const heads = new Map<string, Head>();
  const key = (account: string, log: DigestLogName) => `${account}\u0000${log}`;
  // The chain's last digest so far (assigned in the loop, read by the functions below it).
  let previous = null as Previous | null;
  let latest: DigestSummary["latest"] = null;
  let rowsChecked = 0;
  let checked = 0;

  for (const [number, named] of [...places].sort(([a], [b]) => a - b)) {
    // Several files at one place: the writer's is the chain's, the others are reported and left unread.
    let chosen: Candidate | undefined;
    const others: { name: string; why: string }[] = [];
    for (const name of named) {
      const c = await candidate(name, number, previous);
      const [kept, dropped] = !chosen || c.rank > chosen.rank ? [c, chosen] : [chosen, c];
      if (dropped) others.push({ name: dropped.name, why: whyForeign(dropped, number, previous, kept) });
      chosen = kept;
    }
    // Signed by no trusted key, and not where the chain's next digest belongs: it takes no place in
    // the chain (nor says that the places between are empty).
    if (chosen!.rank < 2 && number !== (previous?.number ?? 0) + 1) {
      for (const c of [{ name: chosen!.name, why: whyForeign(chosen!, number, previous, chosen!) }, ...others]) foreign(c.name, c.why);
      continue;
    }
    const { name, digest } = chosen!;
    for (const c of others) foreign(c.name, `${c.why}; the chain's digest ${number} is ${name}`);
    checked++;
    checkLink(name, number, previous, digest?.previous);
    previous = { number, name, sha256: chosen!.sha256 };
    if (!digest) {
      report("digest_signature", { account_id: "", digest: name, message: `digest ${name} is not a version 1 digest numbered ${number}: it was damaged or replaced` });
      continue;
    }
    // A digest signed by no trusted key is reported, and its rows still compared: a forged digest's findings say what its forger wanted hidden.
    checkSignature(name, digest);
    // A row this digest is the first to sign, dated well before the digest before it, was added afterwards with an old date.
    const lateBefore = latest ? new Date(new Date(latest.created_at).getTime() - LATE_COMMIT_MARGIN_MS).toISOString() : null;
    const previousName = latest?.name;
    latest = { name, created_at: digest.created_at };
    for (const log of digestLogNames) {
      const segments: Signed[] = [];
      for (const [account, logs] of Object.entries(digest.accounts)) {
        const segment = logs[log];
        if (!segment || (accountId !== undefined && account !== accountId)) continue;
        const before = heads.get(key(account, log));
        checkSegmentShape(name, account, log, segment, before);
        heads.set(key(account, log), { seq: segment.last_seq, head: segment.head, digest: name });
        // A segment after a missing one is read from where it says (its coverage gap is reported above).
        segments.push({ account, segment, first: before === undefined && segment.from_seq === 0 });
      }
      rowsChecked += await compareSegments({ name, lateBefore, previousName }, log, segments);
    }
  }
  if (checked === 0) report("digest_chain", { account_id: "", message: `no digests in ${store.location}` });

  // The database's record of the last digest written can only add findings, never remove one.
  const recorded = rows<{ last_number: number; last_name: string; last_sha256: string }>(
    await db.execute(sql`SELECT last_number, last_name, last_sha256 FROM audit_digest_state WHERE id = 1`),
  )[0];
  if (recorded && recorded.last_number > (previous?.number ?? 0)) {
    report("digest_chain", {
      account_id: "",
      digest: recorded.last_name,
      message: `digest ${recorded.last_name} (number ${recorded.last_number}) was written but is not in ${store.location}${previous ? `, which ends at ${previous.name}` : ""}: the latest digests are missing`,
    });
  } else if (recorded && previous && recorded.last_number === previous.number && (recorded.last_name !== previous.name || recorded.last_sha256 !== previous.sha256)) {
    // No later digest vouches for the latest one: only the writer's record of it can.
    report("digest_chain", {
      account_id: "",
      digest: previous.name,
      message: `digest ${previous.name} is not the file written as digest ${recorded.last_number} (${recorded.last_name}, SHA-256 ${recorded.last_sha256}): it was replaced or altered`,
    });
  }

  let rowsAfter = 0;
  if (latest) rowsAfter = await checkUnsigned(new Date(new Date(latest.created_at).getTime() - LATE_COMMIT_MARGIN_MS), latest.name);

  return {
    summary: {
      location: store.location,
      digests_checked: checked,
      latest,
      trusted_keys: [...keys.keys()],
      keys_from: given ? "--public-key" : "store",
      rows_checked: rowsChecked,
      rows_after_last_digest: rowsAfter,
    },
    violations,
    truncated: [...counts].filter(([, n]) => n > limit).map(([check]) => check),
  };

  /** The chain: numbers without gaps from 1, each digest naming the one before it and its SHA-256. */
  function checkLink(name: string, number: number, prev: Previous | null, named: DigestFile["previous"] | undefined) {
    const expected = (prev?.number ?? 0) + 1;
    if (number > expected) {
      const missing = number - expected === 1 ? `digest ${named?.name ?? `number ${expected}`} is missing` : `digests ${expected} to ${number - 1} are missing`;
      report("digest_chain", { account_id: "", digest: name, message: `${missing}: ${name} names ${named?.name ?? "nothing"} as its previous digest, ${prev ? `and the one before in ${store.location} is ${prev.name}` : "and none comes before it"}` });
    } else if (prev && (named?.name !== prev.name || named.sha256 !== prev.sha256)) {
      report("digest_chain", {
        account_id: "",
        digest: prev.name,
        message:
          named?.name === prev.name
            ? `digest ${prev.name} is not the file ${name} signed as its previous (SHA-256 ${named.sha256}, now ${prev.sha256}): it was replaced or altered`
            : `digest ${name} names ${named?.name ?? "nothing"} as its previous digest, not ${prev.name}`,
      });
    } else if (!prev && named) {
      report("digest_chain", { account_id: "", digest: name, message: `digest ${name} is the first but names ${named?.name} as its previous` });
    }
  }

  /** A file at chain place `number`, read and ranked against the chain's previous digest. */
  async function candidate(name: string, number: number, prev: Previous | null): Promise<Candidate> {
    const bytes = (await store.read(name)) ?? Buffer.alloc(0);
    const digest = parseDigest(bytes, number);
    const sha256 = sha256Hex(bytes);
    if (!digest) return { name, rank: 0, sha256 };
    const k = keys.get(digest.key_id);
    if (!k || !signedWith(digest, k.publicKey)) return { name, rank: 1, sha256, digest };
    return { name, rank: follows(digest, prev) && underOwnName(name, digest) ? GENUINE : 2, sha256, digest };
  }

  /** Why a file is not the chain's digest at its place (`kept`: the file preferred to it there). */
  function whyForeign(c: Candidate, number: number, prev: Previous | null, kept: Candidate): string {
    if (c.rank === 0) return `it is not a version 1 digest numbered ${number} (not JSON, truncated, or another shape)`;
    if (c.rank === 1) return `it is not signed by a trusted key (${[...keys.keys()].join(", ") || "none"})`;
    if (c.rank === 2) {
      return underOwnName(c.name, c.digest!)
        ? `it does not name the chain's previous digest (${prev?.name ?? "none"}) and its SHA-256`
        : `it is signed by a trusted key but not under the name the writer gave it: a copy`;
    }
    return `it repeats digest ${kept.name}'s place with a trusted signature and the same previous digest: two writers share this store and key`;
  }

  function foreign(name: string, why: string) {
    report("digest_foreign", { account_id: "", digest: name, message: `${name} in ${store.location} is not part of the digest chain: ${why}` });
  }

  /** Reports a digest that is not signed by a trusted key. */
  function checkSignature(name: string, digest: DigestFile) {
    const k = keys.get(digest.key_id);
    if (!k) {
      if (keys.size > 0) report("digest_signature", { account_id: "", digest: name, message: `digest ${name} is signed by key ${digest.key_id}, which is not a trusted key (${[...keys.keys()].join(", ")}): it was re-signed` });
    } else if (!signedWith(digest, k.publicKey)) {
      report("digest_signature", { account_id: "", digest: name, message: `digest ${name}'s signature does not verify with key ${k.keyId}: it was altered or re-signed` });
    }
  }

  /** A segment continues where the account's previous one ended, and its head follows from its rows. */
  function checkSegmentShape(name: string, account: string, log: DigestLogName, s: DigestSegment, before: Head | undefined) {
    const { nouns } = digestLogs[log];
    const expectedFrom = before?.seq ?? 0;
    if (s.from_seq !== expectedFrom) {
      report("digest_coverage", {
        account_id: account,
        digest: name,
        message:
          s.from_seq > expectedFrom
            ? `digest ${name} signs account ${account}'s ${nouns} after ${digestLogs[log].position} ${s.from_seq}, but ${before ? `the previous digest naming it (${before.digest}) ended at ${expectedFrom}` : "no earlier digest names it"}: the rows between are signed by no digest present`
            : `digest ${name} signs account ${account}'s ${nouns} from ${digestLogs[log].position} ${s.from_seq} again, after ${before!.digest} signed them up to ${expectedFrom}`,
      });
      return;
    }
    let head = before?.head ?? "";
    // A first segment lists rows from the lowest, 0 and below included.
    let last = before ? s.from_seq : -Infinity;
    for (const [seq, fp] of s.rows) {
      if (seq <= last) break;
      head = chainHead(head, seq, fp);
      last = seq;
    }
    if (head !== s.head || (s.rows.length === 0 ? s.last_seq !== s.from_seq : last !== s.last_seq)) {
      report("digest_chain", { account_id: account, digest: name, message: `digest ${name}'s head for account ${account}'s ${nouns} does not follow from the rows it lists` });
    }
  }

  /**
   * Compares a digest's segments of one log with the rows in their ranges: small segments a batch
   * at a time (one statement for many accounts), a large one, or one whose range holds far more
   * rows than it signed, a page at a time.
   */
  async function compareSegments(d: DigestInView, log: DigestLogName, segments: Signed[]): Promise<number> {
    const { name } = d;
    const l = digestLogs[log];
    const late = (t: string) => (d.lateBefore === null ? sql`false` : sql`${sql.raw(t)}.created_at < ${d.lateBefore}::timestamptz`);
    let seen = 0;
    const paged: Signed[] = segments.filter((s) => s.segment.rows.length > half);
    const small = segments.filter((s) => s.segment.rows.length <= half);
    for (let from = 0; from < small.length; ) {
      const batch: Signed[] = [];
      for (let total = 0; from < small.length && (batch.length === 0 || total + small[from].segment.rows.length <= pageSize); from++) {
        total += small[from].segment.rows.length;
        batch.push(small[from]);
      }
      const ranges = batch.map(({ account, segment, first }) => ({ account_id: account, from_seq: first ? null : segment.from_seq, last_seq: segment.last_seq }));
      const found = rows<DbRow & { account_id: string }>(
        await db.execute(sql`
          SELECT s.account_id, t.seq, t.id, t.fp, t.late
            FROM jsonb_to_recordset(${JSON.stringify(ranges)}::jsonb) AS s(account_id text, from_seq bigint, last_seq bigint)
            JOIN LATERAL (SELECT r.seq, r.id, ${rowFingerprint(l.content("r"))} AS fp, ${late("r")} AS late FROM ${l.table} r
                           WHERE r.account_id = s.account_id AND r.seq >= coalesce(s.from_seq + 1, ${LOWEST_SEQ}) AND r.seq <= s.last_seq
                           ORDER BY r.seq LIMIT ${half + extra + 1}) t ON true
           ORDER BY s.account_id, t.seq`),
      );
      const byAccount = new Map<string, DbRow[]>();
      for (const r of found) {
        const list = byAccount.get(r.account_id);
        if (list) list.push(r);
        else byAccount.set(r.account_id, [r]);
      }
      for (const signed of batch) {
        const got = byAccount.get(signed.account) ?? [];
        // More rows in the range than a batch reads: inserted ones; read them page by page.
        if (got.length > half + extra) {
          paged.push(signed);
          continue;
        }
        const m = merger(d, signed.account, log, signed.segment);
        for (const r of got) m.push(r);
        seen += m.finish();
      }
    }
    for (const { account, segment, first } of paged) {
      const m = merger(d, account, log, segment);
      let cursor: number | null = first ? null : segment.from_seq;
      for (;;) {
        const page = rows<DbRow>(
          await db.execute(sql`
            SELECT t.seq, t.id, ${rowFingerprint(l.content("t"))} AS fp, ${late("t")} AS late FROM ${l.table} t
             WHERE t.account_id = ${account} AND t.seq >= coalesce(${cursor}::bigint + 1, ${LOWEST_SEQ}) AND t.seq <= ${segment.last_seq}
             ORDER BY t.seq LIMIT ${pageSize}`),
        );
        for (const r of page) m.push(r);
        if (page.length < pageSize) break;
        cursor = Number(page[page.length - 1].seq);
      }
      seen += m.finish();
    }
    return seen;
  }

  /** Merges a segment's signed rows with the rows found in its range, both in seq order; reports the first difference. */
  function merger({ name, previousName }: DigestInView, account: string, log: DigestLogName, s: DigestSegment) {
    const l = digestLogs[log];
    const differences: { message: string; seq: number; id: string | null }[] = [];
    const late: { seq: number; id: string }[] = [];
    const named = (seq: number, id: string | null) => `${l.noun} ${id ? `${id} ` : ""}(account ${account}, ${l.position} ${seq})`;
    const deleted = (seq: number) => differences.push({ seq, id: null, message: `${named(seq, null)}, signed by digest ${name}, is missing: it was deleted` });
    let i = 0;
    let seen = 0;
    return {
      push(r: DbRow) {
        const seq = Number(r.seq);
        seen++;
        for (; i < s.rows.length && s.rows[i][0] < seq; i++) deleted(s.rows[i][0]);
        if (i < s.rows.length && s.rows[i][0] === seq) {
          if (r.late) late.push({ seq, id: r.id });
          if (s.rows[i][1] !== r.fp) differences.push({ seq, id: r.id, message: `${named(seq, r.id)} differs from what digest ${name} signed: it was changed after it was signed` });
          i++;
        } else {
          differences.push({ seq, id: r.id, message: `${named(seq, r.id)} is not among the rows digest ${name} signed up to ${l.position} ${s.last_seq}: it was inserted afterwards` });
        }
      },
      finish(): number {
        for (; i < s.rows.length; i++) deleted(s.rows[i][0]);
        if (differences.length > 0) {
          const [first] = differences;
          const more = differences.length > 1 ? ` (${differences.length - 1} more ${differences.length > 2 ? l.nouns : l.noun} of this digest ${differences.length > 2 ? "differ" : "differs"})` : "";
          report("digest_rows", { account_id: account, digest: name, row: { log, seq: first.seq, id: first.id }, message: `${first.message}${more}` });
        }
        if (late.length > 0) {
          const [first] = late;
          report("digest_coverage", {
            account_id: account,
            digest: name,
            row: { log, seq: first.seq, id: first.id },
            message: `${named(first.seq, first.id)} is dated before digest ${previousName}, which did not sign it, and first signed by ${name}: it was inserted afterwards with an old date${late.length > 1 ? ` (${late.length - 1} more)` : ""}`,
          });
        }
        return seen;
      },
    };
  }

  /**
   * Rows no digest signs: those written since the last digest are counted; one older than the
   * last digest (by more than a commit can lag) was inserted afterwards and is reported.
   */
  async function checkUnsigned(cutoff: Date, latestName: string): Promise<number> {
    let after = 0;
    for (const log of digestLogNames) {
      const l = digestLogs[log];
      const signed = [...heads].filter(([k]) => k.endsWith(`\u0000${log}`)).map(([k, h]) => ({ account_id: k.split("\u0000")[0], seq: h.seq }));
      const scope: SQL = accountId === undefined ? sql`true` : sql`t.account_id = ${accountId}`;
      const found = rows<{ account_id: string; n: string | number; old: string | number; first_seq: string | number | null; first_id: string | null }>(
        await db.execute(sql`
          SELECT t.account_id, count(*) AS n, count(*) FILTER (WHERE t.created_at < ${cutoff.toISOString()}::timestamptz) AS old,
                 min(t.seq) FILTER (WHERE t.created_at < ${cutoff.toISOString()}::timestamptz) AS first_seq,
                 (array_agg(t.id ORDER BY t.seq) FILTER (WHERE t.created_at < ${cutoff.toISOString()}::timestamptz))[1] AS first_id
            FROM ${l.table} t
            LEFT JOIN jsonb_to_recordset(${JSON.stringify(signed)}::jsonb) AS h(account_id text, seq bigint) ON h.account_id = t.account_id
           WHERE ${scope} AND (h.seq IS NULL OR t.seq > h.seq)
           GROUP BY t.account_id
           ORDER BY t.account_id`),
      );
      for (const r of found) {
        after += Number(r.n) - Number(r.old);
        if (Number(r.old) > 0) {
          report("digest_coverage", {
            account_id: r.account_id,
            digest: latestName,
            row: { log, seq: Number(r.first_seq), id: r.first_id },
            message: `${r.old} ${Number(r.old) > 1 ? l.nouns : l.noun} of account ${r.account_id} (the first: ${r.first_id}, ${l.position} ${r.first_seq}) dated before digest ${latestName} ${Number(r.old) > 1 ? "are" : "is"} signed by no digest: inserted afterwards`,
          });
        }
      }
    }
    return after;
  }
}

/** The public keys published beside the digests (keys/<id>.pem); a file whose name is not its key's id is ignored. */
async function publishedKeys(store: DigestStore): Promise<DigestPublicKey[]> {
  const found: DigestPublicKey[] = [];
  for (const name of await store.list("keys/")) {
    const bytes = await store.read(name);
    if (!bytes) continue;
    try {
      const k = digestPublicKey(bytes.toString("utf8"), name);
      if (name === `keys/${k.keyId}.pem`) found.push(k);
    } catch {
      // Not a public key: nothing to trust.
    }
  }
  return found;
}

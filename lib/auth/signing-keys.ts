import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { desc, isNull } from "drizzle-orm";
import { signingKeys } from "../db/schema";
import type { Db } from "../db/types";
import { randomToken } from "./secrets";

export const JWT_ALG = "ES256";

type KeyLike = CryptoKey | Uint8Array;
interface KeySet {
  signing: { kid: string; key: KeyLike };
  verify: Map<string, KeyLike>;
  jwks: JWK[];
  loadedAt: number;
}

const RELOAD_MS = 60_000;
const cache = new WeakMap<Db, Promise<KeySet>>();

async function load(db: Db): Promise<KeySet> {
  let rows = await db.select().from(signingKeys).where(isNull(signingKeys.retiredAt)).orderBy(desc(signingKeys.createdAt));
  if (rows.length === 0) {
    await createSigningKey(db);
    rows = await db.select().from(signingKeys).where(isNull(signingKeys.retiredAt)).orderBy(desc(signingKeys.createdAt));
  }
  const verify = new Map<string, KeyLike>();
  const jwks: JWK[] = [];
  for (const row of rows) {
    verify.set(row.kid, await importJWK(row.publicJwk as JWK, row.alg));
    jwks.push({ ...(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: "sig" });
  }
  const newest = rows[0];
  const signing = { kid: newest.kid, key: await importJWK(newest.privateJwk as JWK, newest.alg) };
  return { signing, verify, jwks, loadedAt: Date.now() };
}

async function keySet(db: Db, forceReload = false): Promise<KeySet> {
  const current = cache.get(db);
  if (current && !forceReload) {
    const set = await current.catch(() => undefined);
    if (set && Date.now() - set.loadedAt < RELOAD_MS) return set;
  }
  const next = load(db);
  cache.set(db, next);
  next.catch(() => cache.delete(db));
  return next;
}

/** Adds a new signing key; older keys keep verifying until retired, so live tokens stay valid. */
export async function createSigningKey(db: Db): Promise<string> {
  const { publicKey, privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
  const kid = randomToken(12);
  await db.insert(signingKeys).values({
    kid,
    alg: JWT_ALG,
    publicJwk: await exportJWK(publicKey),
    privateJwk: await exportJWK(privateKey),
  });
  cache.delete(db);
  return kid;
}

export async function currentSigningKey(db: Db) {
  return (await keySet(db)).signing;
}

/** The verification key for `kid`; an unknown kid reloads once (another instance may have rotated). */
export async function verificationKey(db: Db, kid: string): Promise<KeyLike | undefined> {
  const set = await keySet(db);
  return set.verify.get(kid) ?? (await keySet(db, true)).verify.get(kid);
}

export async function publicJwks(db: Db): Promise<{ keys: JWK[] }> {
  return { keys: (await keySet(db)).jwks };
}

import { exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { desc, isNull } from "drizzle-orm";
import { signingKeys } from "../db/schema";
import type { Db } from "../db/types";
import { randomToken } from "./secrets";

export const JWT_ALG = "ES256";

type KeyLike = CryptoKey | Uint8Array;
interface SigningKey {
  kid: string;
  key: KeyLike;
  createdAt: number;
}
interface KeySet {
  /** Every non-retired key, newest first. */
  signing: SigningKey[];
  verify: Map<string, KeyLike>;
  jwks: JWK[];
  loadedAt: number;
}

/** Cache-Control max-age of the JWKS: how long a verifier may keep a copy. */
export const JWKS_MAX_AGE_SECONDS = 300;
const RELOAD_MS = 60_000;
/**
 * A new key signs only once every JWKS copy in circulation lists it: another instance serves its
 * old set for up to RELOAD_MS, and a verifier may keep that copy for JWKS_MAX_AGE_SECONDS.
 */
export const PUBLISH_BEFORE_SIGNING_MS = RELOAD_MS + JWKS_MAX_AGE_SECONDS * 1000;
const cache = new WeakMap<Db, Promise<KeySet>>();

async function load(db: Db): Promise<KeySet> {
  // The kid breaks ties so that every instance picks the same signer.
  const active = () => db.select().from(signingKeys).where(isNull(signingKeys.retiredAt)).orderBy(desc(signingKeys.createdAt), desc(signingKeys.kid));
  let rows = await active();
  if (rows.length === 0) {
    await createSigningKey(db);
    rows = await active();
  }
  const verify = new Map<string, KeyLike>();
  const jwks: JWK[] = [];
  const signing: SigningKey[] = [];
  for (const row of rows) {
    verify.set(row.kid, await importJWK(row.publicJwk as JWK, row.alg));
    jwks.push({ ...(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: "sig" });
    signing.push({ kid: row.kid, key: await importJWK(row.privateJwk as JWK, row.alg), createdAt: row.createdAt.getTime() });
  }
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

/**
 * Adds a signing key. It is in the JWKS at once and signs once PUBLISH_BEFORE_SIGNING_MS have
 * passed; older keys keep verifying until retired, so live tokens stay valid.
 */
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

/**
 * The newest key published for PUBLISH_BEFORE_SIGNING_MS; while none is (a new installation, or
 * every older key retired), the key published longest.
 */
export async function currentSigningKey(db: Db): Promise<{ kid: string; key: KeyLike }> {
  const { signing } = await keySet(db);
  const now = Date.now();
  return signing.find((k) => now - k.createdAt >= PUBLISH_BEFORE_SIGNING_MS) ?? signing[signing.length - 1];
}

/** The verification key for `kid`; an unknown kid reloads once (another instance may have rotated). */
export async function verificationKey(db: Db, kid: string): Promise<KeyLike | undefined> {
  const set = await keySet(db);
  return set.verify.get(kid) ?? (await keySet(db, true)).verify.get(kid);
}

export async function publicJwks(db: Db): Promise<{ keys: JWK[] }> {
  return { keys: (await keySet(db)).jwks };
}

import crypto from "node:crypto";
import { eq, inArray, lt, sql } from "drizzle-orm";
import type { S3Client } from "@aws-sdk/client-s3";
import type { Db } from "../db/types";
import { storedResults } from "../db/schema";
import { env, publicUrl } from "../env";
import { getOrCreateSecret } from "../auth/app-secret";
import { lazySdk } from "../lazy-sdk";

/** The AWS SDK, loaded for the first result stored in a bucket (S3_BUCKET). */
const awsSdk = lazySdk(async () => ({ ...(await import("@aws-sdk/client-s3")), ...(await import("@aws-sdk/s3-request-presigner")) }));

/**
 * Where the full content of a truncated result goes. By default the database (`stored_results`),
 * served by `GET /api/v1/results/{id}` behind an HMAC-signed, expiring URL: any instance serves a
 * URL another issued. With S3_BUCKET an S3-compatible bucket and a presigned GET URL. Either way
 * the client uses the URL as is.
 */
export interface StoredResult {
  url: string;
  expiresAt: Date;
}

const secrets = new WeakMap<Db, Promise<string>>();
function urlSecret(db: Db): Promise<string> {
  let s = secrets.get(db);
  if (!s) {
    s = getOrCreateSecret(db, "result_url_secret");
    secrets.set(db, s);
  }
  return s;
}

const ID = /^exe_[0-9a-z]{26}$/;

function sign(secret: string, id: string, expires: number): string {
  return crypto.createHmac("sha256", secret).update(`${id}.${expires}`).digest("base64url");
}

let s3: S3Client | undefined;
function s3Client(sdk: typeof import("@aws-sdk/client-s3")): S3Client {
  const e = env();
  s3 ??= new sdk.S3Client({ region: e.S3_REGION, endpoint: e.S3_ENDPOINT, forcePathStyle: e.S3_FORCE_PATH_STYLE === "true" });
  return s3;
}

export async function storeFullResult(db: Db, executionId: string, content: string): Promise<StoredResult> {
  const e = env();
  const ttl = e.RESULT_URL_TTL_SECONDS;
  const expiresAt = new Date(Date.now() + ttl * 1000);
  if (e.S3_BUCKET) {
    const key = `results/${executionId}.json`;
    const sdk = await awsSdk();
    await s3Client(sdk).send(new sdk.PutObjectCommand({ Bucket: e.S3_BUCKET, Key: key, Body: content, ContentType: "application/json" }));
    const url = await sdk.getSignedUrl(s3Client(sdk), new sdk.GetObjectCommand({ Bucket: e.S3_BUCKET, Key: key }), { expiresIn: ttl });
    return { url, expiresAt };
  }
  await db
    .insert(storedResults)
    .values({ executionId, content, expiresAt })
    .onConflictDoUpdate({ target: storedResults.executionId, set: { content, expiresAt } });
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const sig = sign(await urlSecret(db), executionId, expires);
  return { url: `${publicUrl()}/api/v1/results/${executionId}?expires=${expires}&sig=${sig}`, expiresAt };
}

export type ResultAccess = { ok: true; content: string } | { ok: false; reason: "invalid_signature" | "expired" | "not_found" };

/** Checks a local signed URL: constant-time signature comparison, then expiry, then existence. */
export async function openStoredResult(db: Db, id: string, expires: string, sig: string): Promise<ResultAccess> {
  const exp = Number(expires);
  if (!ID.test(id) || !Number.isInteger(exp)) return { ok: false, reason: "invalid_signature" };
  const expected = Buffer.from(sign(await urlSecret(db), id, exp));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return { ok: false, reason: "invalid_signature" };
  if (exp * 1000 < Date.now()) return { ok: false, reason: "expired" };
  const [row] = await db.select({ content: storedResults.content }).from(storedResults).where(eq(storedResults.executionId, id));
  return row ? { ok: true, content: row.content } : { ok: false, reason: "not_found" };
}

/** Deletes stored results whose URLs have expired (a batch at a time); returns how many went. */
export async function deleteExpiredResults(db: Db, batchSize = 500): Promise<number> {
  const expired = db.select({ id: storedResults.executionId }).from(storedResults).where(lt(storedResults.expiresAt, sql`now()`)).limit(batchSize);
  const deleted = await db.delete(storedResults).where(inArray(storedResults.executionId, expired)).returning({ id: storedResults.executionId });
  return deleted.length;
}

import crypto from "node:crypto";

/** SHA-256 hex of a high-entropy secret (API keys, client secrets, codes, refresh tokens). */
// One-shot `crypto.hash` (Node >= 20.12) digests without a Hash object: a third of the cost for
// the short strings hashed on every request (API keys).
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

export function sha256Hex(value: string): string {
  return oneShot ? oneShot("sha256", value, "hex") : crypto.createHash("sha256").update(value).digest("hex");
}

export function randomToken(bytes = 32): string {
  return crypto.randomBytes(bytes).toString("base64url");
}

/** Constant-time comparison of two hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "hex");
  const bb = Buffer.from(b, "hex");
  return ab.length === bb.length && crypto.timingSafeEqual(ab, bb);
}

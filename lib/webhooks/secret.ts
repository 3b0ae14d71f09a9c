import crypto from "node:crypto";
import type { Db } from "../db/types";
import { getAuthSecret } from "../auth/app-secret";

/**
 * Webhook signing secrets: `whsec_` + base64 of 24 random bytes (the Standard Webhooks form),
 * shown once and kept encrypted (AES-256-GCM) under a key derived with HKDF from the app secret
 * (AUTH_SECRET, or the generated one in the database). The ciphertext is bound to its endpoint id
 * (additional data), so a row's secret cannot be moved to another endpoint.
 */
const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function generateWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString("base64")}`;
}

const keys = new Map<string, Buffer>();

export function deriveWebhookKey(appSecret: string): Buffer {
  let key = keys.get(appSecret);
  if (!key) {
    key = Buffer.from(crypto.hkdfSync("sha256", appSecret, "tollgate", "webhook-secrets/v1", 32));
    keys.set(appSecret, key);
  }
  return key;
}

// The app secret does not change while a process runs: looked up once per database handle.
const handleKeys = new WeakMap<Db, Promise<Buffer>>();

export function webhookKey(db: Db): Promise<Buffer> {
  let key = handleKeys.get(db);
  if (!key) {
    key = getAuthSecret(db).then(deriveWebhookKey);
    key.catch(() => handleKeys.delete(db));
    handleKeys.set(db, key);
  }
  return key;
}

export function encryptWebhookSecret(key: Buffer, endpointId: string, secret: string): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(endpointId));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url")}`;
}

export class UndecryptableSecretError extends Error {
  constructor() {
    super("The endpoint's signing secret cannot be decrypted (was AUTH_SECRET changed since it was created?); create the endpoint again");
    this.name = "UndecryptableSecretError";
  }
}

export function decryptWebhookSecret(key: Buffer, endpointId: string, stored: string): string {
  const [version, body] = stored.split(".");
  if (version !== VERSION || !body) throw new UndecryptableSecretError();
  const raw = Buffer.from(body, "base64url");
  if (raw.length < IV_BYTES + TAG_BYTES) throw new UndecryptableSecretError();
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(endpointId));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new UndecryptableSecretError();
  }
}

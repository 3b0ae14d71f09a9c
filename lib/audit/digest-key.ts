// The key that signs the audit digests (lib/audit/digests.ts): Ed25519 through node:crypto. It
// never enters the database; verifying a digest needs only its public key.
import crypto, { type KeyObject } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { AuditDigestConfig } from "../env";

export interface DigestSigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  keyId: string;
  publicPem: string;
}

export interface DigestPublicKey {
  publicKey: KeyObject;
  keyId: string;
}

/** A key's id: the first 16 hex digits of the SHA-256 of its public key (SPKI, DER). */
export function keyIdOf(publicKey: KeyObject): string {
  return crypto.createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest("hex").slice(0, 16);
}

function ed25519(key: KeyObject, source: string): KeyObject {
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`${source} is a ${key.asymmetricKeyType ?? key.type} key; audit digests are signed with Ed25519`);
  return key;
}

function signingKey(pem: string, source: string): DigestSigningKey {
  const privateKey = ed25519(crypto.createPrivateKey(pem), source);
  const publicKey = crypto.createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: keyIdOf(publicKey), publicPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

/**
 * The configured key: AUDIT_DIGEST_KEY, AUDIT_DIGEST_KEY_FILE, or Tollgate's own file in DATA_DIR,
 * generated on first use (mode 0600; `wx`, so two processes starting together keep one key).
 */
export function loadDigestSigningKey(config: AuditDigestConfig): DigestSigningKey {
  if (config.key) return signingKey(config.key, "AUDIT_DIGEST_KEY");
  if (config.generatedKey && !fs.existsSync(config.keyFile)) {
    const { privateKey } = crypto.generateKeyPairSync("ed25519");
    fs.mkdirSync(path.dirname(config.keyFile), { recursive: true });
    try {
      fs.writeFileSync(config.keyFile, privateKey.export({ type: "pkcs8", format: "pem" }), { flag: "wx", mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return signingKey(fs.readFileSync(config.keyFile, "utf8"), config.keyFile);
}

/** A public key from its PEM text (SPKI). */
export function digestPublicKey(pem: string, source: string): DigestPublicKey {
  if (/PRIVATE KEY/.test(pem)) throw new Error(`${source} holds a private key: verifying needs only the public key (keys/<id>.pem beside the digests)`);
  const publicKey = ed25519(crypto.createPublicKey(pem), source);
  return { publicKey, keyId: keyIdOf(publicKey) };
}

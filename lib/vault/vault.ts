// The vault: what Tollgate keeps of other services' secrets (connection tokens, pasted API keys,
// operators' OAuth client secrets), sealed with AES-256-GCM under a key that never enters the
// database (VAULT_KEY, VAULT_KEY_FILE, or a key generated in DATA_DIR on the embedded default).
// Each ciphertext names its key and is bound to where it is stored (the AAD), so a row's value
// copied into another row does not open.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface VaultKey {
  id: string;
  key: Buffer;
}

export interface Vault {
  /** The key new ciphertexts are sealed with. */
  current: VaultKey;
  /** Every key a ciphertext may name: the current one and VAULT_PREVIOUS_KEYS (during a rotation). */
  keys: Map<string, VaultKey>;
}

/** A ciphertext the vault cannot open: its key is not configured, or it was altered or moved. */
export class VaultError extends Error {}

/** A key's id: the first 12 hex digits of SHA-256 over the key, which tells keys apart without revealing them. */
function keyOf(key: Buffer, source: string): VaultKey {
  if (key.length !== 32) throw new Error(`${source} must be 32 bytes (64 hex digits or 44 base64 characters); got ${key.length} bytes`);
  return { id: crypto.createHash("sha256").update("tollgate-vault\0").update(key).digest("hex").slice(0, 12), key };
}

/** 64 hex digits, or base64 / base64url of 32 bytes. */
export function parseVaultKey(text: string, source: string): VaultKey {
  const t = text.trim();
  return keyOf(/^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, "hex") : Buffer.from(t, "base64"), source);
}

export function generateVaultKeyText(): string {
  return crypto.randomBytes(32).toString("base64");
}

const VaultEnv = z.object({
  DATA_DIR: z.string().default("./.data"),
  VAULT_KEY: z.string().min(1).optional(),
  VAULT_KEY_FILE: z.string().min(1).optional(),
  VAULT_PREVIOUS_KEYS: z.string().default(""),
});

/**
 * The configured vault, read at each use like the digest key (the CLI's `vault rekey` and the
 * tests change it): VAULT_KEY, else VAULT_KEY_FILE, else DATA_DIR/vault-key, generated on first
 * use (mode 0600; `wx`, so two processes starting together keep one key). Instances that share a
 * database must share the key.
 */
export function loadVault(source: Record<string, string | undefined> = process.env): Vault {
  const parsed = VaultEnv.safeParse(source);
  if (!parsed.success) throw new Error(`Invalid environment:\n${parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n")}`);
  const e = parsed.data;
  if (e.VAULT_KEY && e.VAULT_KEY_FILE) throw new Error("Invalid environment:\n  set VAULT_KEY or VAULT_KEY_FILE, not both");
  let current: VaultKey;
  if (e.VAULT_KEY) current = parseVaultKey(e.VAULT_KEY, "VAULT_KEY");
  else {
    const file = path.resolve(e.VAULT_KEY_FILE ?? path.join(e.DATA_DIR, "vault-key"));
    if (!e.VAULT_KEY_FILE && !fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      try {
        fs.writeFileSync(file, `${generateVaultKeyText()}\n`, { flag: "wx", mode: 0o600 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    current = parseVaultKey(fs.readFileSync(file, "utf8"), file);
  }
  const keys = new Map([[current.id, current]]);
  for (const [i, text] of e.VAULT_PREVIOUS_KEYS.split(",").map((s) => s.trim()).filter(Boolean).entries()) {
    const key = parseVaultKey(text, `VAULT_PREVIOUS_KEYS[${i}]`);
    if (!keys.has(key.id)) keys.set(key.id, key);
  }
  return { current, keys };
}

let cached: { signature: string; vault: Vault } | undefined;

/** The process's vault, loaded again when its variables change. */
export function vault(): Vault {
  const signature = [process.env.DATA_DIR, process.env.VAULT_KEY, process.env.VAULT_KEY_FILE, process.env.VAULT_PREVIOUS_KEYS].join("\0");
  if (cached?.signature !== signature) cached = { signature, vault: loadVault() };
  return cached.vault;
}

/** Seals `plain` for the place named by `context` (e.g. `connections.access_token:con_…`). */
export function seal(plain: string, context: string, v: Vault = vault()): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", v.current.key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${v.current.id}.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

/** Opens a ciphertext sealed for `context`; throws VaultError (never with the value) when it cannot. */
export function open(sealed: string, context: string, v: Vault = vault()): string {
  const [version, keyId, iv, body, ...rest] = sealed.split(".");
  if (version !== VERSION || !keyId || !iv || !body || rest.length > 0) throw new VaultError(`not a vault ciphertext (${context.split(":")[0]})`);
  const key = v.keys.get(keyId);
  if (!key) throw new VaultError(`sealed under vault key ${keyId}, which this server does not hold (VAULT_KEY, or VAULT_PREVIOUS_KEYS during a rotation)`);
  const bytes = Buffer.from(body, "base64url");
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key.key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new VaultError(`a ciphertext under vault key ${keyId} does not open for ${context.split(":")[0]}: altered, or moved from another row`);
  }
}

/** The key id a ciphertext names (rekeying skips those already under the current key). */
export function keyIdOf(sealed: string): string | undefined {
  return sealed.split(".")[1];
}

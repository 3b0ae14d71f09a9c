import crypto from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";
import type { Db } from "../db/types";
import { getOrCreateSecret } from "./app-secret";
import { sha256Hex } from "./secrets";
import { lazySdk } from "../lazy-sdk";

const qrcode = lazySdk(() => import("qrcode").then((module) => module.default));

/**
 * Two-factor sign-in's primitives (issue 43): TOTP codes (RFC 6238: SHA-1, 30 s steps, 6 digits,
 * one step of clock drift either way) with otplib, the enrolment's QR code, the secret encrypted
 * at rest (AES-256-GCM), and single-use recovery codes kept as SHA-256 digests.
 */

export const TOTP_ISSUER = "Tollgate";
export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;

/** A new base32 secret of 160 bits (RFC 4226's recommended length), as authenticator apps take it. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

export function totpUri(secret: string, email: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: email, secret, period: TOTP_PERIOD_SECONDS, digits: 6 });
}

/** The otpauth URI as an SVG QR code (rendered on the server: the secret never reaches a third party). */
export async function totpQrSvg(uri: string): Promise<string> {
  return (await qrcode()).toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
}

export const isTotpCode = (code: string) => /^\d{6}$/.test(code);

/** A code as typed: spaces and dashes dropped, letters lower-cased ("123 456", "ABCD-EFGH-…"). */
export function normalizeCode(raw: string): string {
  return raw.replace(/[\s-]/g, "").toLowerCase();
}

/**
 * The time step a 6-digit code belongs to, if it is valid now or one step before or after, and
 * later than `afterStep` (the last step accepted: a code is never accepted twice); else null.
 */
export async function matchTotp(secret: string, code: string, options: { afterStep?: number | null; nowMs?: number } = {}): Promise<number | null> {
  if (!isTotpCode(code)) return null;
  const result = await verify({
    secret,
    token: code,
    period: TOTP_PERIOD_SECONDS,
    epoch: Math.floor((options.nowMs ?? Date.now()) / 1000),
    epochTolerance: TOTP_PERIOD_SECONDS,
    ...(options.afterStep === null || options.afterStep === undefined ? {} : { afterTimeStep: options.afterStep }),
  });
  // The functional API's result also covers HOTP; a TOTP match carries its time step.
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

// Encryption at rest: "v1.<iv>.<tag>.<ciphertext>" (base64url), under a key derived with HKDF from
// a named application secret of its own, so rotating the session secret leaves TOTP secrets readable.
const KEY_SECRET_NAME = "totp_encryption_key";
const FORMAT = "v1";

export async function getTotpKey(db: Db): Promise<Buffer> {
  const secret = await getOrCreateSecret(db, KEY_SECRET_NAME);
  return Buffer.from(crypto.hkdfSync("sha256", secret, "tollgate", "totp secret encryption v1", 32));
}

export function encryptTotpSecret(secret: string, key: Buffer): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [FORMAT, iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

export function decryptTotpSecret(stored: string, key: Buffer): string {
  const [format, iv, tag, ciphertext] = stored.split(".");
  if (format !== FORMAT || !iv || !tag || ciphertext === undefined) throw new Error("Unreadable TOTP secret");
  const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}

// Recovery codes: 16 characters of a 31-letter alphabet without look-alikes (79 bits), shown as
// four groups of four. That much entropy makes an unsalted SHA-256 digest safe to keep.
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const chars = Array.from({ length: 16 }, () => RECOVERY_ALPHABET[crypto.randomInt(RECOVERY_ALPHABET.length)]).join("");
    return chars.match(/.{4}/g)!.join("-");
  });
}

export const isRecoveryCode = (normalized: string) => /^[a-z0-9]{16}$/.test(normalized);

export function hashRecoveryCode(code: string): string {
  return sha256Hex(normalizeCode(code));
}

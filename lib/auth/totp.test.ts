import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { generate } from "otplib";
import { decryptTotpSecret, encryptTotpSecret, hashRecoveryCode, isRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret, normalizeCode, totpQrSvg, totpUri } from "./totp";

const key = crypto.randomBytes(32);
const T0 = 1_800_000_015_000; // 15 s into a 30 s step
const codeAt = (secret: string, ms: number) => generate({ secret, epoch: Math.floor(ms / 1000) });

describe("TOTP codes", () => {
  it("accepts the current step's code and one step either side, not two", async () => {
    const secret = newTotpSecret();
    const step = Math.floor(T0 / 30_000);
    expect(await matchTotp(secret, await codeAt(secret, T0), { nowMs: T0 })).toBe(step);
    expect(await matchTotp(secret, await codeAt(secret, T0 - 30_000), { nowMs: T0 })).toBe(step - 1);
    expect(await matchTotp(secret, await codeAt(secret, T0 + 30_000), { nowMs: T0 })).toBe(step + 1);
    expect(await matchTotp(secret, await codeAt(secret, T0 - 60_000), { nowMs: T0 })).toBeNull();
    expect(await matchTotp(secret, await codeAt(secret, T0 + 60_000), { nowMs: T0 })).toBeNull();
  });

  it("never accepts a step at or before the last one accepted", async () => {
    const secret = newTotpSecret();
    const code = await codeAt(secret, T0);
    const step = (await matchTotp(secret, code, { nowMs: T0 }))!;
    expect(await matchTotp(secret, code, { nowMs: T0, afterStep: step })).toBeNull();
    expect(await matchTotp(secret, await codeAt(secret, T0 + 30_000), { nowMs: T0, afterStep: step })).toBe(step + 1);
  });

  it("refuses what is not six digits", async () => {
    expect(await matchTotp(newTotpSecret(), "12345", { nowMs: T0 })).toBeNull();
    expect(await matchTotp(newTotpSecret(), "abcdef", { nowMs: T0 })).toBeNull();
  });

  it("writes an otpauth URI for the issuer and email, and its QR code as SVG", async () => {
    const uri = totpUri("JBSWY3DPEHPK3PXP", "ada@example.test");
    expect(uri).toMatch(/^otpauth:\/\/totp\/Tollgate:ada%40example\.test\?/);
    expect(uri).toContain("secret=JBSWY3DPEHPK3PXP");
    expect(uri).toContain("issuer=Tollgate");
    expect(await totpQrSvg(uri)).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
  });
});

describe("the TOTP secret at rest", () => {
  it("round-trips under its key, differs each time, and fails under another key or when altered", () => {
    const secret = newTotpSecret();
    const a = encryptTotpSecret(secret, key);
    expect(a).not.toContain(secret);
    expect(encryptTotpSecret(secret, key)).not.toBe(a);
    expect(decryptTotpSecret(a, key)).toBe(secret);
    expect(() => decryptTotpSecret(a, crypto.randomBytes(32))).toThrow();
    const [v, iv, tag, ct] = a.split(".");
    const flipped = Buffer.from(ct, "base64url");
    flipped[0] ^= 1;
    expect(() => decryptTotpSecret([v, iv, tag, flipped.toString("base64url")].join("."), key)).toThrow();
  });
});

describe("recovery codes", () => {
  it("are ten distinct high-entropy codes, hashed the same however they are typed", () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) {
      expect(c).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
      expect(isRecoveryCode(normalizeCode(c))).toBe(true);
    }
    expect(hashRecoveryCode(codes[0].toUpperCase().replace(/-/g, " "))).toBe(hashRecoveryCode(codes[0]));
    expect(hashRecoveryCode(codes[0])).toMatch(/^[0-9a-f]{64}$/);
  });
});

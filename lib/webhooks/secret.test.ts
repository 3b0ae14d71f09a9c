import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { decryptWebhookSecret, deriveWebhookKey, encryptWebhookSecret, generateWebhookSecret, UndecryptableSecretError } from "./secret";
import { signDelivery } from "./sign";

const key = deriveWebhookKey("an app secret of at least thirty-two characters");

describe("webhook secrets", () => {
  it("are whsec_ + base64 of 24 random bytes", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it("round-trip through AES-256-GCM, and the ciphertext holds nothing of the secret", () => {
    const secret = generateWebhookSecret();
    const stored = encryptWebhookSecret(key, "whe_1", secret);
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(decryptWebhookSecret(key, "whe_1", stored)).toBe(secret);
    // A fresh IV each time.
    expect(encryptWebhookSecret(key, "whe_1", secret)).not.toBe(stored);
  });

  it("do not decrypt under another key, for another endpoint, or once tampered with", () => {
    const stored = encryptWebhookSecret(key, "whe_1", generateWebhookSecret());
    expect(() => decryptWebhookSecret(deriveWebhookKey("another app secret, also thirty-two chars"), "whe_1", stored)).toThrow(UndecryptableSecretError);
    expect(() => decryptWebhookSecret(key, "whe_2", stored)).toThrow(UndecryptableSecretError);
    const raw = Buffer.from(stored.slice(3), "base64url");
    raw[raw.length - 1] ^= 1;
    expect(() => decryptWebhookSecret(key, "whe_1", `v1.${raw.toString("base64url")}`)).toThrow(UndecryptableSecretError);
    expect(() => decryptWebhookSecret(key, "whe_1", "garbage")).toThrow(UndecryptableSecretError);
  });
});

describe("signatures", () => {
  it("are v1, + base64 HMAC-SHA256 over id.timestamp.body with the secret's bytes, and verify with standardwebhooks", () => {
    const secret = generateWebhookSecret();
    const at = new Date();
    const body = JSON.stringify({ type: "balance.low", timestamp: at.toISOString(), data: { a: 1 } });
    const headers = signDelivery(secret, "msg_1", at, body);
    const ts = Math.floor(at.getTime() / 1000);
    const expected = crypto.createHmac("sha256", Buffer.from(secret.slice(6), "base64")).update(`msg_1.${ts}.${body}`).digest("base64");
    expect(headers).toEqual({ "webhook-id": "msg_1", "webhook-timestamp": String(ts), "webhook-signature": `v1,${expected}` });
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow();
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateVaultKeyText, loadVault, open, parseVaultKey, seal, VaultError } from "./vault";

const vaultOf = (key: string, previous = "") => loadVault({ VAULT_KEY: key, VAULT_PREVIOUS_KEYS: previous });

describe("the vault", () => {
  it("seals with AES-256-GCM under the current key: each ciphertext is fresh, names its key and opens only where it was sealed for", () => {
    const v = vaultOf(generateVaultKeyText());
    const a = seal("fat_secret", "connections.access_token:con_1", v);
    const b = seal("fat_secret", "connections.access_token:con_1", v);
    expect(a).not.toBe(b);
    expect(a).not.toContain("fat_secret");
    expect(a.split(".")[1]).toBe(v.current.id);
    expect(open(a, "connections.access_token:con_1", v)).toBe("fat_secret");
    // Moved to another row or column, it does not open.
    expect(() => open(a, "connections.access_token:con_2", v)).toThrow(VaultError);
    expect(() => open(a, "connections.refresh_token:con_1", v)).toThrow(VaultError);
    // Altered, it does not open.
    const parts = a.split(".");
    const body = Buffer.from(parts[3], "base64url");
    body[0] ^= 1;
    expect(() => open([...parts.slice(0, 3), body.toString("base64url")].join("."), "connections.access_token:con_1", v)).toThrow(VaultError);
  });

  it("opens under a previous key during a rotation, and not without it; the error never holds the value", () => {
    const old = generateVaultKeyText();
    const sealed = seal("frt_refresh", "ctx", vaultOf(old));
    const rotated = vaultOf(generateVaultKeyText(), old);
    expect(open(sealed, "ctx", rotated)).toBe("frt_refresh");
    const forgotten = vaultOf(generateVaultKeyText());
    expect(() => open(sealed, "ctx", forgotten)).toThrow(/does not hold/);
    try {
      open(sealed, "ctx", forgotten);
    } catch (err) {
      expect((err as Error).message).not.toContain("frt_refresh");
    }
  });

  it("takes 64 hex digits or base64 of 32 bytes, refuses other lengths, and generates its own key file once on the embedded default", () => {
    const hex = "ab".repeat(32);
    expect(parseVaultKey(hex, "K").key).toEqual(Buffer.from(hex, "hex"));
    expect(() => parseVaultKey("c2hvcnQ=", "VAULT_KEY")).toThrow(/VAULT_KEY must be 32 bytes/);
    expect(() => loadVault({ VAULT_KEY: hex, VAULT_KEY_FILE: "/x" })).toThrow(/not both/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vault-"));
    const first = loadVault({ DATA_DIR: dir });
    const second = loadVault({ DATA_DIR: dir });
    expect(second.current.id).toBe(first.current.id);
    expect(fs.statSync(path.join(dir, "vault-key")).mode & 0o777).toBe(0o600);
    fs.rmSync(dir, { recursive: true });
  });
});

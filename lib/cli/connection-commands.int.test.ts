import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { importManifest } from "../testing/catalog";
import { seedAccount } from "../testing/fixtures";
import { accounts, providerOauthApps } from "../db/schema";
import { oauthApp } from "../connections/oauth-client";
import { runCommand, UsageError } from "./commands";

const { db } = await createTestDatabase();
const cli = (...argv: string[]) => runCommand(db, argv) as Promise<Record<string, unknown>>;

await importManifest(db, {
  providers: [
    {
      id: "octo",
      name: "Octo",
      transport: "http",
      base_url: "https://api.octo.example",
      auth: { type: "bearer", connection: true },
      connection: { type: "oauth2", authorization_url: "https://octo.example/authorize", token_url: "https://octo.example/token" },
      tools: [{ id: "octo.me", name: "Me", description: "Who am I", execution: { method: "GET", path: "/me" } }],
    },
  ],
});

describe("connections commands (operator)", () => {
  it("register Tollgate with a provider: the secret read from a file and sealed in the vault, never echoed", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "oauth-secret-"));
    const file = path.join(dir, "secret");
    fs.writeFileSync(file, "octo-client-secret\n");
    const registered = await cli("connections", "register", "--provider", "octo", "--client-id", "tollgate-app", "--client-secret-file", file);
    expect(registered).toEqual({ provider_id: "octo", client_id: "tollgate-app", client_secret: "sealed in the vault", redirect_uri_to_register: "http://tollgate.test/api/v1/connections/callback" });
    const [row] = await db.select().from(providerOauthApps).where(eq(providerOauthApps.providerId, "octo"));
    expect(row.clientSecret).toMatch(/^v1\./);
    expect(row.clientSecret).not.toContain("octo-client-secret");
    expect(await oauthApp(db, "octo")).toEqual({ clientId: "tollgate-app", clientSecret: "octo-client-secret", source: "cli" });
    expect(await cli("connections", "apps")).toMatchObject({ apps: [{ provider_id: "octo", client_id: "tollgate-app" }] });
    expect(await cli("connections", "app", "--provider", "octo")).toMatchObject({ registered: true, source: "cli", env: { clientId: "TOLLGATE_OAUTH_OCTO_CLIENT_ID" } });
    expect(await cli("connections", "unregister", "--provider", "octo")).toEqual({ provider_id: "octo", removed: true });
    await expect(cli("connections", "register", "--provider", "octo", "--client-id", "x", "--client-secret-file", path.join(dir, "missing"))).rejects.toThrow(UsageError);
    fs.rmSync(dir, { recursive: true });
  });

  it("set an account's region, or none; a malformed one is a usage error", async () => {
    const { accountId } = await seedAccount(db);
    expect(await cli("accounts", "region", "--account", accountId, "--region", "eu")).toEqual({ account_id: accountId, region: "eu" });
    expect((await db.select({ region: accounts.region }).from(accounts).where(eq(accounts.id, accountId)))[0].region).toBe("eu");
    expect(await cli("accounts", "region", "--account", accountId, "--region", "none")).toEqual({ account_id: accountId, region: null });
    await expect(cli("accounts", "region", "--account", accountId, "--region", "EU West")).rejects.toThrow(/region code/);
  });

  it("vault key-id names the key new secrets are sealed with", async () => {
    const ids = await cli("vault", "key-id");
    expect(ids.current).toMatch(/^[0-9a-f]{12}$/);
  });
});

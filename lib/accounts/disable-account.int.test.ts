import { describe, expect, it } from "vitest";
import { createTestDatabase, testDbKind } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { bearer, seedAccount } from "../testing/fixtures";
import { openDatabase } from "../db/open";
import { setAccountDisabled } from "./disable-account";
import { revokeApiKey } from "../auth/api-keys";
import { startAuthListener } from "../auth/auth-listener";
import { ACCOUNT_DISABLED } from "../auth/auth-change";

const credits = (server: TestServer, token: string) => fetch(`${server.url}/api/v1/auth/credits`, { headers: bearer(token) });

describe("disabled accounts", () => {
  it("every key and token of a disabled account is refused with 403 at once, and works again once enabled", async () => {
    const database = await createTestDatabase();
    const server = await startTestServer(database);
    const a = await seedAccount(database.db, { credits: "5" });
    const other = await seedAccount(database.db);
    // Cached lookups first: the change must not wait for them to expire.
    expect((await credits(server, a.apiKey)).status).toBe(200);
    expect((await credits(server, a.accessToken)).status).toBe(200);

    expect(await setAccountDisabled(database.db, { accountId: a.accountId, disabled: true })).toMatchObject({ account_id: a.accountId, disabled: true, disabled_at: expect.any(String) });
    for (const token of [a.apiKey, a.accessToken]) {
      const res = await credits(server, token);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ status: "failure", status_code: 403, message: ACCOUNT_DISABLED });
    }
    const call = await fetch(`${server.url}/api/v1/tools/execute`, {
      method: "POST",
      headers: { ...bearer(a.apiKey), "Content-Type": "application/json" },
      body: JSON.stringify({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 1, annual_rate_percent: 1, years: 1 } }),
    });
    expect(call.status).toBe(403);
    // Other accounts are untouched.
    expect((await credits(server, other.apiKey)).status).toBe(200);

    expect(await setAccountDisabled(database.db, { accountId: a.accountId, disabled: false })).toMatchObject({ disabled: false, disabled_at: null });
    expect((await credits(server, a.apiKey)).status).toBe(200);
    expect((await credits(server, a.accessToken)).status).toBe(200);
  });

  it("an unknown account is a not-found error", async () => {
    const database = await createTestDatabase();
    await expect(setAccountDisabled(database.db, { accountId: "acc_nope", disabled: true })).rejects.toThrow(/not found/);
  });
});

describe.runIf(testDbKind() === "postgres")("on another instance (a second pool with its own caches and listener)", () => {
  it("a revoked key and a disabled account are refused there at once, not after the cache's 5 s", async () => {
    const database = await createTestDatabase();
    const elsewhere = await openDatabase({ kind: "postgres", url: database.url!, poolSize: 4 });
    const stop = startAuthListener(database.url!, elsewhere.db);
    const server = await startTestServer(elsewhere);
    try {
      const a = await seedAccount(database.db);
      const b = await seedAccount(database.db);
      expect((await credits(server, a.apiKey)).status).toBe(200);
      expect((await credits(server, b.apiKey)).status).toBe(200);
      // Let the listener connect before the changes (it drops every cached lookup when it does).
      await new Promise((r) => setTimeout(r, 500));
      expect((await credits(server, a.apiKey)).status).toBe(200);

      const waitFor = async (token: string, status: number) => {
        const started = Date.now();
        while ((await credits(server, token)).status !== status) {
          if (Date.now() - started > 2_000) throw new Error(`still not ${status} after 2 s`);
          await new Promise((r) => setTimeout(r, 20));
        }
        return Date.now() - started;
      };
      await revokeApiKey(database.db, { id: a.apiKeyId });
      expect(await waitFor(a.apiKey, 401)).toBeLessThan(1_000);
      await setAccountDisabled(database.db, { accountId: b.accountId, disabled: true });
      expect(await waitFor(b.apiKey, 403)).toBeLessThan(1_000);
    } finally {
      stop();
      await server.close();
      await elsewhere.close();
    }
  });
});

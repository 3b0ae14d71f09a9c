// One refresh per expired token, however many Calls find it expired at once and on however many
// instances (NangoHQ/nango#1005, #2494: two refreshes of a rotating token and the grant is lost).
// On PostgreSQL three API instances, each with its own pool, share the database: the row lock
// decides across them. PGlite is one process: the in-process flight decides there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { createTestDatabase, testDbKind } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { callApi, seedAccount } from "../testing/fixtures";
import { startFakeOAuthProvider, type FakeOAuthProvider } from "../testing/fake-oauth-provider";
import { manifestFromOpenApi } from "../catalog/openapi/convert";
import { importCatalog } from "../catalog/import";
import { setOauthApp } from "./oauth-client";
import { sessionCookie } from "../dashboard-session/browser-session";
import { connections } from "../db/schema";
import { openDatabase } from "../db/open";
import type { Database } from "../db/types";

const CALLBACK = "http://tollgate.test/api/v1/connections/callback";
const CALLS = 50;
let database: Database & { url?: string };
let servers: TestServer[];
let provider: FakeOAuthProvider;
let listItems: string;

beforeAll(async () => {
  database = await createTestDatabase({ poolSize: 20 });
  // A slow refresh answer: every Call arrives while the first refresh is still out.
  provider = await startFakeOAuthProvider({ redirectUris: [CALLBACK], refreshDelayMs: 300 });
  const document = await (await fetch(`${provider.url}/openapi.json`)).json();
  const converted = await manifestFromOpenApi(document, { origin: "fake", documentUrl: `${provider.url}/openapi.json`, providerId: "flight", allowPrivateNetwork: true, priceCredits: 1 });
  await importCatalog(database.db, converted.manifest);
  listItems = converted.manifest.providers[0].tools.find((t) => (t.execution as { operation_id?: string }).operation_id === "listItems")!.id;
  await setOauthApp(database.db, "flight", provider.clientId, provider.clientSecret);
  const instances: Database[] = [database];
  if (testDbKind() === "postgres") {
    for (let i = 0; i < 2; i++) {
      const other = await openDatabase({ kind: "postgres", url: database.url!, poolSize: 10 });
      instances.push(other);
      afterAll(() => other.close());
    }
  }
  servers = await Promise.all(instances.map((d) => startTestServer(d)));
});

afterAll(() => provider.close());

describe("refreshing an expired token", () => {
  it(`${CALLS} concurrent Calls with an expired token: exactly one refresh reaches the provider, every Call succeeds, the rotated refresh token is kept`, async () => {
    const user = await seedAccount(database.db, { credits: "1000" });
    const key = (await callApi(servers[0].url, "POST", "/auth/api-keys", user.accessToken, { name: "agent" })).body.data.api_key as string;
    const started = await callApi(servers[0].url, "POST", "/auth/connections", user.accessToken, { provider_id: "flight", scopes: ["items:read"] });
    const authorizationUrl = new URL(started.body.data.authorization_url);
    const decided = await fetch(provider.authorizationUrl, { method: "POST", body: new URLSearchParams({ ...Object.fromEntries(authorizationUrl.searchParams), user: "alice", decision: "allow" }), redirect: "manual" });
    const cookie = await sessionCookie(database.db, { userId: user.userId, accountId: user.accountId, role: "owner" });
    const back = await fetch(`${servers[0].url}/api/v1/connections/callback${new URL(decided.headers.get("location")!).search}`, { headers: { cookie }, redirect: "manual" });
    expect(back.status).toBe(302);

    // The token expires, at the provider and by Tollgate's record.
    provider.expireAccessTokens();
    await database.db.update(connections).set({ expiresAt: sql`now() - interval '1 minute'` }).where(eq(connections.accountId, user.accountId));
    const refreshesBefore = provider.refreshCount();
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        callApi(servers[i % servers.length].url, "POST", "/tools/execute", key, { tool_id: listItems, parameters: { q: `c${i}` } }),
      ),
    );
    const refreshes = provider.refreshCount() - refreshesBefore;
    console.log(`single-flight: ${CALLS} Calls on ${servers.length} instance(s) (${testDbKind()}), ${refreshes} refresh request(s) reached the provider`);
    expect(results.map((r) => r.body.success)).toEqual(Array(CALLS).fill(true));
    expect(refreshes).toBe(1);
    expect(provider.tokenRequests.filter((t) => t.grantType === "refresh_token").map((t) => t.status).slice(-1)).toEqual([200]);

    // The rotated refresh token was saved: the next expiry refreshes again, with it, and succeeds.
    provider.expireAccessTokens();
    await database.db.update(connections).set({ expiresAt: sql`now() - interval '1 minute'` }).where(eq(connections.accountId, user.accountId));
    const again = await callApi(servers[1 % servers.length].url, "POST", "/tools/execute", key, { tool_id: listItems, parameters: { q: "later" } });
    expect(again.body).toMatchObject({ success: true });
    expect(provider.refreshCount() - refreshesBefore).toBe(2);
    const [row] = await database.db.select().from(connections).where(eq(connections.accountId, user.accountId));
    expect(row).toMatchObject({ status: "active", tokenVersion: 2 });
    // 50 Calls of an http tool through one PGlite (WASM) beside a loaded run's other files: correctness is judged here, not speed.
  }, 120_000);
});

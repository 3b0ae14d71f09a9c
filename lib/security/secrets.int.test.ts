import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { bearer } from "../testing/fixtures";
import { importDemoCatalog } from "../testing/catalog";
import { basic, form, startOAuthHarness, type OAuthHarness } from "../testing/oauth";
import { startAdminChannel, sendAdminCommand } from "../server/admin-channel";
import { decideDeviceAuthorization } from "../oauth/device";
import { ACCESS_TOKEN_TYPE } from "../oauth/token-exchange";
import { apiAudience } from "../auth/issuer";
import { sha256Hex } from "../auth/secrets";
import { apiKeys, oauthClients, users } from "../db/schema";
import { rows } from "../db/row-sql";
import { redirectLogs } from "../log";
import type { Database } from "../db/types";

/**
 * Secrets are kept only as hashes, and never logged. One burst of real requests — accounts, users,
 * keys and OAuth clients made through the admin channel (as the CLI does), Calls, searches, key
 * creation and revocation over the API, the token exchange, device and refresh grants, a signed
 * result download, and refused credentials — runs with every log line captured at `trace`; then
 * the log and every text column of the database are searched for each secret the run handled.
 */

const COMPOUND = "builtin.finance.compound_interest";
const COMPOUND_PARAMS = { principal: 100, annual_rate_percent: 5, years: 2 };
const PASSWORD = `pw-${crypto.randomBytes(12).toString("hex")}`;

let database: Database;
let h: OAuthHarness;
let dataDir: string;
let log = "";
/** Every secret the run handled, by what it is. */
const secrets: Record<string, string> = {};

async function api(method: string, p: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.server.url}/api/v1${p}`, {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text.startsWith("{") ? JSON.parse(text) : text) as ReturnType<typeof JSON.parse> };
}

const admin = (argv: string[]) => sendAdminCommand(dataDir, argv) as Promise<Record<string, string>>;
const tokenEndpoint = (body: URLSearchParams, headers: Record<string, string> = {}) => h.fetch(h.as.token_endpoint!, { method: "POST", headers, body });

/** The burst: each step also records the secrets it handled. */
async function run() {
  const { account_id: accountId } = await admin(["accounts", "create", "--name", "Secrets", "--credits", "50"]);
  const { user_id: userId } = await admin(["users", "create", "--account", accountId, "--email", `secrets-${accountId}@example.test`, "--password", PASSWORD]);
  secrets.password = PASSWORD;
  secrets.cliApiKey = (await admin(["keys", "create", "--account", accountId, "--name", "cli"])).api_key;
  secrets.accessToken = (await admin(["tokens", "issue", "--user", userId])).access_token;
  const runtime = await admin(["clients", "create", "--name", "Runtime", "--type", "confidential", "--grant", "token_exchange", "--agent-runtime"]);
  secrets.clientSecret = runtime.client_secret;
  const device = await admin(["clients", "create", "--name", "Device CLI", "--type", "public", "--grant", "device_code", "--grant", "refresh_token"]);

  // Keys over the API: created, used, revoked, then refused.
  const created = (await api("POST", "/auth/api-keys", secrets.accessToken, { name: "burst" })).body.data;
  secrets.apiKey = created.api_key;
  for (const key of [secrets.apiKey, secrets.cliApiKey]) {
    expect((await api("POST", "/search", key, { query: "compound interest" })).status).toBe(200);
    expect((await api("POST", "/tools/execute", key, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS })).status).toBe(200);
    // A credential in the query string, where a careless access log would copy it.
    expect((await api("GET", `/auth/credits?api_key=${key}`, key)).status).toBe(200);
  }
  const truncated = (await api("POST", "/tools/execute", secrets.apiKey, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS, max_response_size: 10 })).body;
  const download = new URL(truncated.result.full_content_file_url);
  secrets.resultSignature = download.searchParams.get("sig")!;
  expect((await h.fetch(download.href)).status).toBe(200);
  expect((await api("DELETE", `/auth/api-keys/${created.api_key_id}`, secrets.accessToken)).status).toBe(200);
  expect((await api("GET", "/auth/credits", secrets.apiKey)).status).toBe(401);

  // A webhook endpoint: its signing secret is in the answer, and stored only encrypted.
  const webhook = await api("POST", "/auth/webhooks", secrets.accessToken, { url: "https://93.184.215.14/hooks" });
  expect(webhook.status).toBe(200);
  secrets.webhookSecret = (webhook.body.data.secret as string).replace(/^whsec_/, "");

  // Credentials that are refused: an unknown key, a tampered token, a wrong client secret.
  secrets.unknownApiKey = `tg_${crypto.randomBytes(24).toString("base64url")}`;
  expect((await api("GET", "/auth/credits", secrets.unknownApiKey)).status).toBe(401);
  secrets.tamperedToken = `${secrets.accessToken.slice(0, -6)}AAAAAA`;
  expect((await api("GET", "/auth/usage/history/v2", secrets.tamperedToken)).status).toBe(401);
  secrets.wrongClientSecret = crypto.randomBytes(24).toString("base64url");
  const exchange = (secret: string) =>
    tokenEndpoint(
      form({
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        subject_token: secrets.accessToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: apiAudience(),
        scope: "tools:execute",
      }),
      { authorization: basic(runtime.client_id, secret) },
    );
  expect((await exchange(secrets.wrongClientSecret)).status).toBe(401);

  // The token exchange, and a Call with the delegation token it issues.
  const delegated = await exchange(secrets.clientSecret);
  expect(delegated.status).toBe(200);
  secrets.delegationToken = ((await delegated.json()) as { access_token: string }).access_token;
  expect((await api("POST", "/tools/execute", secrets.delegationToken, { tool_id: COMPOUND, parameters: COMPOUND_PARAMS })).status).toBe(200);

  // The device grant, a refresh, and a revocation.
  const client = { client_id: device.client_id };
  const started = await oauth.processDeviceAuthorizationResponse(h.as, client, await oauth.deviceAuthorizationRequest(h.as, client, oauth.None(), { scope: "usage:read" }, h.http));
  secrets.deviceCode = started.device_code;
  await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId, accountId, approve: true });
  const tokens = await oauth.processDeviceCodeResponse(h.as, client, await oauth.deviceCodeGrantRequest(h.as, client, oauth.None(), started.device_code, h.http));
  secrets.deviceAccessToken = tokens.access_token;
  const refreshed = await oauth.processRefreshTokenResponse(h.as, client, await oauth.refreshTokenGrantRequest(h.as, client, oauth.None(), tokens.refresh_token!, h.http));
  secrets.refreshToken = refreshed.refresh_token!;
  expect((await api("GET", "/auth/usage/history/v2", refreshed.access_token)).status).toBe(200);
  const revoked = await h.fetch(h.as.revocation_endpoint!, { method: "POST", body: form({ client_id: device.client_id, token: secrets.refreshToken }) });
  expect(revoked.status).toBe(200);
}

beforeAll(async () => {
  database = await createTestDatabase();
  await importDemoCatalog(database.db);
  h = await startOAuthHarness(database);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-secrets-"));
  const stopAdmin = await startAdminChannel(database.db, dataDir);
  afterAll(() => {
    stopAdmin();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const restore = redirectLogs((chunk) => (log += chunk), "trace");
  try {
    await run();
  } finally {
    restore();
  }
});

describe("secrets", () => {
  it("the run was logged: the capture holds its access lines and the admin commands", () => {
    const lines = log.trim().split("\n").map((l) => JSON.parse(l) as { msg?: string; path?: string; status?: number });
    expect(lines.filter((l) => l.path === "/api/v1/tools/execute").length).toBeGreaterThanOrEqual(4);
    expect(lines.filter((l) => l.status === 401).length).toBeGreaterThanOrEqual(3);
    expect(lines.filter((l) => l.msg === "admin command").length).toBe(6);
  });

  it("no key, token, client secret, password, device code, URL signature or webhook secret appears in the log", () => {
    expect(Object.keys(secrets).length).toBe(14);
    for (const [what, secret] of Object.entries(secrets)) {
      expect(secret.length, what).toBeGreaterThanOrEqual(16);
      expect(log.includes(secret), `${what} in the log`).toBe(false);
    }
  });

  it("API keys, client secrets, passwords and OAuth tokens are stored only as hashes (webhook secrets encrypted): no text column of any table holds one", async () => {
    const columns = rows<{ table_name: string; column_name: string }>(
      await database.db.execute(sql`
        SELECT c.table_name, c.column_name FROM information_schema.columns c
          JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
         WHERE c.table_schema = 'public' AND c.data_type IN ('text', 'character varying', 'json', 'jsonb')`),
    );
    expect(columns.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const any = sql.join(
        Object.values(secrets).map((s) => sql`strpos(${sql.identifier(column)}::text, ${s}) > 0`),
        sql` OR `,
      );
      const hit = rows<{ n: number }>(await database.db.execute(sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE ${any}`));
      if (hit[0].n > 0) found.push(`${table}.${column}`);
    }
    expect(found).toEqual([]);
  });

  it("what is stored instead: the SHA-256 of each key and client secret, a bcrypt hash of the password", async () => {
    const [key] = await database.db.select({ keyHash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.keyHash, sha256Hex(secrets.apiKey)));
    expect(key).toBeDefined();
    const [client] = await database.db.select({ secretHash: oauthClients.secretHash }).from(oauthClients).where(eq(oauthClients.secretHash, sha256Hex(secrets.clientSecret)));
    expect(client).toBeDefined();
    const [user] = await database.db.select({ hash: users.passwordHash }).from(users).where(sql`${users.email} LIKE 'secrets-%'`);
    expect(user.hash).toMatch(/^\$2[aby]\$\d\d\$/);
  });
});

import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { adminCommand } from "./admin";
import { SCREENSHOT_DIR, PHONE_VIEWPORT, DESKTOP_VIEWPORT, expect, screenshotBoth, signIn, test as base } from "./fixtures";
import { startServer, type RunningServer } from "./server";
import { openDatabase } from "../lib/db/open";
import { migrateDatabase } from "../lib/db/migrate";
import { createOAuthClient } from "../lib/oauth/create-client";
import { freeLoopbackPort } from "../lib/testing/services";
import { startFakeOAuthProvider, type FakeOAuthProvider } from "../lib/testing/fake-oauth-provider";

/**
 * Connected accounts (docs/connections.md) in the browser, against the production server: a Call
 * of a tool that acts as the user is refused with `oauth_signin_required` and a Connect button; the
 * provider's consent page brings the browser back to the Console, and the Call then acts with the
 * user's token — refreshed silently once it expires, and asked for again once the provider revokes
 * it. The providers are the independent fake OAuth provider (lib/testing/fake-oauth-provider.ts)
 * and Tollgate's own authorization server.
 *
 * A server of this spec's own, started with Tollgate's registration at both providers in its
 * environment (TOLLGATE_OAUTH_<PROVIDER>_CLIENT_ID / _CLIENT_SECRET, docs/connections.md): the
 * way an operator configures it without the CLI (`connections register`, tested in
 * lib/cli/connection-commands.int.test.ts). Tollgate's own client (whose secret Tollgate
 * generates) is registered in the database before the server opens it, as statements.spec.ts
 * prepares its DATA_DIR.
 */

const FAKE = "fakeprov-e2e";
const FAKE_TOOL = `${FAKE}:listItems`;
const FAKE_NAME = "Fake provider API";
const SELF = "tollgate-self";
const SELF_TOOL = `${SELF}.credits`;
const SELF_NAME = "Tollgate (self)";

let server: RunningServer;
let dataDir: string;
let provider: FakeOAuthProvider;
let selfClientId: string;

/**
 * The server and the fake provider, started once per worker (a worker fixture rather than
 * beforeAll: the pages' baseURL is this server's, and Playwright resolves it before beforeAll runs).
 */
const test = base.extend<object, { connectionsServer: RunningServer }>({
  connectionsServer: [
    async ({}, use) => {
      try {
        await setUp();
        await use(server);
      } finally {
        await tearDown();
      }
    },
    { scope: "worker", timeout: 240_000 },
  ],
  baseURL: async ({ connectionsServer }, use) => use(connectionsServer.baseUrl),
});

test.describe.configure({ mode: "serial", timeout: 120_000 });

const admin = (argv: string[]) => adminCommand(argv, dataDir) as Promise<Record<string, unknown>>;

async function setUp() {
  const port = await freeLoopbackPort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // What the server sends as redirect_uri: its PUBLIC_URL (startServer's default, the base URL) + the callback's path.
  const callback = `${baseUrl}/api/v1/connections/callback`;
  provider = await startFakeOAuthProvider({ redirectUris: [callback] });

  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-connections-"));
  const database = await openDatabase({ kind: "pglite", dataDir: path.join(dataDir, "pgdata") });
  let selfSecret: string;
  try {
    await migrateDatabase(database);
    // What `npm run cli -- clients create --name self-connect --type confidential --redirect-uri … --grant authorization_code --grant refresh_token` does.
    const client = await createOAuthClient(database.db, {
      name: "self-connect",
      type: "confidential",
      redirectUris: [callback],
      grants: ["authorization_code", "refresh_token"],
    });
    selfClientId = client.client_id;
    selfSecret = client.client_secret!;
  } finally {
    await database.close();
  }

  server = await startServer(process.cwd(), {
    port,
    logFile: path.join(dataDir, "server.log"),
    env: {
      DATA_DIR: dataDir,
      SEED_DEMO: "false",
      TOLLGATE_OAUTH_FAKEPROV_E2E_CLIENT_ID: provider.clientId,
      TOLLGATE_OAUTH_FAKEPROV_E2E_CLIENT_SECRET: provider.clientSecret,
      TOLLGATE_OAUTH_TOLLGATE_SELF_CLIENT_ID: selfClientId,
      TOLLGATE_OAUTH_TOLLGATE_SELF_CLIENT_SECRET: selfSecret,
    },
  });
  expect(server.baseUrl).toBe(baseUrl);

  // The fake provider, from its OpenAPI document: its oauth2 scheme imports as an OAuth connection.
  await admin(["providers", "import", "--openapi", `${provider.url}/openapi.json`, "--id", FAKE, "--allow-private-network", "--price", "1"]);

  // Tollgate's own authorization server as a provider of its own API.
  const manifest = {
    providers: [
      {
        id: SELF,
        name: SELF_NAME,
        description: "This Tollgate's own API, called as the connected user",
        transport: "http",
        base_url: `${baseUrl}/api/v1`,
        allow_private_network: true,
        auth: { type: "bearer", connection: true },
        connection: {
          type: "oauth2",
          authorization_url: `${baseUrl}/api/v1/oauth/authorize`,
          token_url: `${baseUrl}/api/v1/oauth/token`,
          default_scopes: ["ledger:read"],
        },
        tools: [
          {
            id: SELF_TOOL,
            name: "Tollgate credits",
            description: "The connected user's account balance by credit kind",
            params: [],
            billing_rule: { unit: "free", amount_credits: 0 },
            execution: { method: "GET", path: "/auth/credits", result_path: "data" },
          },
        ],
      },
    ],
  };
  const manifestFile = path.join(dataDir, "tollgate-self.json");
  fs.writeFileSync(manifestFile, JSON.stringify(manifest));
  await admin(["providers", "import", "--file", manifestFile]);
}

async function tearDown() {
  await server?.stop();
  await provider?.close();
  if (dataDir) {
    // Kept beside the other results for a person to read when something failed.
    const log = path.join(dataDir, "server.log");
    if (fs.existsSync(log)) {
      fs.mkdirSync("test-results", { recursive: true });
      fs.copyFileSync(log, path.join("test-results", "connections-server.log"));
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A fresh account with `credits` and its owner. */
async function seedOwner(label: string, credits: number) {
  const suffix = crypto.randomBytes(4).toString("hex");
  const { account_id: accountId } = (await admin(["accounts", "create", "--name", `e2e ${label} ${suffix}`, "--credits", String(credits)])) as { account_id: string };
  const email = `e2e-${label}-${suffix}@example.test`;
  const password = `pw-${crypto.randomBytes(9).toString("hex")}`;
  const { user_id: userId } = (await admin(["users", "create", "--account", accountId, "--email", email, "--password", password, "--role", "owner"])) as { user_id: string };
  return { accountId, userId, email, password };
}

/**
 * The Console with `toolId` selected, calling with a playground key the signed-in user creates
 * (a key's Calls act with its creator's connections; one the operator's CLI made has no creator
 * and would use only a connection shared with the account).
 */
async function openConsole(page: Page, toolId: string, toolName: string) {
  await page.goto(`/console?tool_id=${encodeURIComponent(toolId)}`);
  await page.getByRole("button", { name: "Create a playground key" }).click();
  await expect(page.getByTestId("key-picker-prefix")).toContainText("tg_");
  await expect(page.getByTestId("console-tool-name")).toHaveText(toolName);
}

/**
 * Clicks Call (and "Call and pay" for a priced tool) and waits for a new result: the audit link
 * names the execution, so an earlier result still showing is never mistaken for this one.
 */
async function call(page: Page, { paid }: { paid: boolean }): Promise<Locator> {
  const result = page.getByTestId("call-result");
  const audit = result.getByTestId("audit-link");
  const before = (await audit.count()) > 0 ? await audit.getAttribute("href") : null;
  await page.getByRole("button", { name: "Call", exact: true }).click();
  if (paid) await page.getByTestId("confirm-call").getByRole("button", { name: "Call and pay" }).click();
  await expect(audit).toHaveAttribute("href", /./);
  if (before !== null) await expect(audit).not.toHaveAttribute("href", before);
  return result;
}

async function expectRefusal(result: Locator, providerName: string) {
  await expect(result.getByTestId("call-reason")).toHaveText("oauth_signin_required");
  await expect(result.getByTestId("call-status")).toContainText("Failed");
  await expect(result.getByTestId("call-charge")).toHaveText("0 credits");
  const notice = result.getByTestId("signin-required");
  await expect(notice).toContainText(`Connect your ${providerName} account to call this tool`);
  await expect(result.getByTestId("connect-from-call")).toHaveText(`Connect ${providerName}`);
}

async function expectSuccess(result: Locator) {
  await expect(result.getByTestId("call-status")).toContainText("Succeeded");
  await expect(result.getByTestId("signin-required")).toHaveCount(0);
}

/** The phone's width must not scroll sideways either; the refusal and its button are in view. */
async function screenshotRefusal(page: Page, name: string) {
  await screenshotBoth(page, name);
  await page.setViewportSize(PHONE_VIEWPORT);
  await page.getByTestId("connect-from-call").scrollIntoViewIfNeeded();
  await expect(page.getByTestId("connect-from-call")).toBeInViewport();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-phone-viewport.png`) });
  await page.setViewportSize(DESKTOP_VIEWPORT);
}

/** Back from the consent page: the Console again, the same tool selected, with the success banner. */
async function expectBackInConsole(page: Page, toolId: string, providerName: string, providerId: string) {
  await expect(page).toHaveURL((url) => url.pathname === "/console" && url.searchParams.get("tool_id") === toolId && url.searchParams.get("connected") === providerId);
  await expect(page.getByRole("main").getByTestId("connected-banner")).toContainText(`${providerName} is connected`);
  await expect(page.getByTestId("console-tool-name")).toBeVisible();
}

test("a tool acting as the user at a third-party provider: connect from the refused Call, refresh silently, reconnect after revocation", async ({ page }) => {
  const owner = await seedOwner("connections-fake", 20);
  await signIn(page, owner);
  await openConsole(page, FAKE_TOOL, "The user's items matching a query");

  // No connection: refused before anything is sent upstream, nothing charged.
  const upstreamBefore = provider.resourceRequests.length;
  let result = await call(page, { paid: true });
  await expectRefusal(result, FAKE_NAME);
  await expect(result.getByTestId("signin-required")).toContainText("items:read");
  expect(provider.resourceRequests).toHaveLength(upstreamBefore);
  await screenshotRefusal(page, "connections-console-signin-required");

  // Connect: the provider's consent page, then back to the Console with the tool still selected.
  await result.getByTestId("connect-from-call").click();
  await expect(page).toHaveTitle("Fake provider — consent");
  expect(new URL(page.url()).origin).toBe(provider.url);
  await expect(page.getByRole("listitem")).toContainText(["items:read"]);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, "connections-fake-provider-consent.png"), fullPage: true });
  await page.getByRole("button", { name: "Allow" }).click();
  await expectBackInConsole(page, FAKE_TOOL, FAKE_NAME, FAKE);
  await screenshotBoth(page, "connections-console-connected");

  // The Call now acts with the user's token at the provider.
  result = await call(page, { paid: true });
  await expectSuccess(result);
  await expect(result.getByTestId("call-charge")).toHaveText("1 credit");
  await expect(result.getByTestId("call-result-json")).toContainText("alice");
  expect(provider.resourceRequests.at(-1)).toMatchObject({ path: "/api/items", status: 200 });
  expect(provider.resourceRequests.at(-1)?.authorization).toMatch(/^Bearer fat_/);
  const usedToken = provider.resourceRequests.at(-1)?.authorization;

  // The provider expires the token before Tollgate expects: its 401 is answered by one refresh and a retry.
  const refreshesBefore = provider.refreshCount();
  provider.expireAccessTokens();
  result = await call(page, { paid: true });
  await expectSuccess(result);
  expect(provider.refreshCount()).toBe(refreshesBefore + 1);
  expect(provider.tokenRequests.at(-1)).toMatchObject({ grantType: "refresh_token", status: 200 });
  expect(provider.resourceRequests.at(-1)).toMatchObject({ path: "/api/items", status: 200 });
  expect(provider.resourceRequests.at(-1)?.authorization).toMatch(/^Bearer fat_/);
  expect(provider.resourceRequests.at(-1)?.authorization).not.toBe(usedToken);

  // The provider revokes the grant: the refresh is refused and the Call asks for the user again.
  provider.revokeUser("alice");
  result = await call(page, { paid: true });
  await expectRefusal(result, FAKE_NAME);
  expect(provider.tokenRequests.at(-1)).toMatchObject({ grantType: "refresh_token", status: 400 });

  // Reconnect through the consent page; the Call succeeds again.
  await result.getByTestId("connect-from-call").click();
  await expect(page).toHaveTitle("Fake provider — consent");
  await page.getByRole("button", { name: "Allow" }).click();
  await expectBackInConsole(page, FAKE_TOOL, FAKE_NAME, FAKE);
  result = await call(page, { paid: true });
  await expectSuccess(result);
  expect(provider.resourceRequests.at(-1)).toMatchObject({ path: "/api/items", status: 200 });

  // The Connections page lists it: the user's own, active, with the scope it was granted.
  await page.goto("/connections");
  const row = page.getByTestId("connection-row").filter({ hasText: FAKE_NAME });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Active");
  await expect(row).toContainText("You");
  await expect(row).toContainText("items:read");
  await screenshotBoth(page, "connections-page");
});

test("Tollgate's own authorization server as the provider: connect through its consent page, then the Call reads the balance", async ({ page }) => {
  const owner = await seedOwner("connections-self", 25);
  await signIn(page, owner);
  await openConsole(page, SELF_TOOL, "Tollgate credits");

  let result = await call(page, { paid: false });
  await expectRefusal(result, SELF_NAME);

  await result.getByTestId("connect-from-call").click();
  await expect(page).toHaveURL(/\/oauth\/consent\?/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("self-connect wants to access your account");
  await expect(page.getByTestId("requested-scopes")).toContainText("Read the credit balance and the credits ledger");
  await screenshotBoth(page, "connections-tollgate-consent");
  await page.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Console" })).toBeVisible();
  // The consent page navigates the browser itself: a redirect URI on Tollgate's own origin is reached like any other.
  await expectBackInConsole(page, SELF_TOOL, SELF_NAME, SELF);

  result = await call(page, { paid: false });
  await expectSuccess(result);
  const json = result.getByTestId("call-result-json");
  await expect(json).toContainText(owner.accountId);
  await expect(json).toContainText(/"total_credits":\s*25,/);
  await expect(result.getByTestId("call-charge")).toHaveText("0 credits");
  await screenshotBoth(page, "connections-console-tollgate-self");

  await page.goto("/connections");
  const row = page.getByTestId("connection-row").filter({ hasText: SELF_NAME });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Active");
  await expect(row).toContainText("ledger:read");
});

import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { request as playwrightRequest, type APIRequestContext, type Page } from "@playwright/test";
import { adminCommand } from "./admin";
import { expect, saveScreenshot, test } from "./fixtures";
import { startServer, type RunningServer } from "./server";

/**
 * The dashboard's sign-in throttle through the production server: per client address, per
 * account with backoff, and addresses the client cannot choose. A server of this spec's own, so
 * the addresses it blocks never refuse another spec's sign-ins; TRUST_PROXY=1 and the test plays
 * the reverse proxy, appending each simulated client's address to X-Forwarded-For.
 */

let server: RunningServer;
const user = { email: "", password: "" };
const victim = { email: "", password: "" };
const contexts: APIRequestContext[] = [];

test.describe.configure({ mode: "serial", timeout: 180_000 });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-login-")), "server.log");
  server = await startServer(process.cwd(), { logFile, env: { TRUST_PROXY: "1", SEED_DEMO: "false" } });
  const admin = (argv: string[]) => adminCommand(argv, server.dataDir) as Promise<Record<string, string>>;
  const suffix = crypto.randomBytes(4).toString("hex");
  const accountId = (await admin(["accounts", "create", "--name", `e2e login ${suffix}`])).account_id;
  for (const [who, name] of [[user, "user"], [victim, "victim"]] as const) {
    Object.assign(who, { email: `${name}-${suffix}@example.test`, password: `pw-${crypto.randomBytes(9).toString("hex")}` });
    await admin(["users", "create", "--account", accountId, "--email", who.email, "--password", who.password, "--role", "owner"]);
  }
});

test.afterAll(async () => {
  for (const context of contexts) await context.dispose();
  await server?.stop();
});

/** A client at `address` (as the trusted proxy reports it), with its own cookies. */
async function clientAt(address: string, headers: Record<string, string> = {}): Promise<APIRequestContext> {
  const context = await playwrightRequest.newContext({ baseURL: server.baseUrl, extraHTTPHeaders: { "x-forwarded-for": address, ...headers } });
  contexts.push(context);
  return context;
}

/** One sign-in through next-auth's credentials callback: null when it signed in, else next-auth's error code. */
async function signInError(client: APIRequestContext, credentials: { email: string; password: string }): Promise<string | null> {
  const { csrfToken } = (await (await client.get("/api/auth/csrf")).json()) as { csrfToken: string };
  const res = await client.post("/api/auth/callback/credentials", { form: { ...credentials, csrfToken, callbackUrl: "/", json: "true" } });
  const { url } = (await res.json()) as { url: string };
  return new URL(url).searchParams.get("error");
}

/** The wait a refusal names, in seconds. */
function throttledFor(error: string | null): number {
  expect(error).toMatch(/^TooManyAttempts:\d+$/);
  return Number(error!.split(":")[1]);
}

async function signInWithForm(page: Page, credentials: { email: string; password: string }): Promise<void> {
  await page.getByLabel(/Email|邮箱/).fill(credentials.email);
  await page.getByLabel(/Password|密码/).fill(credentials.password);
  await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
}

test("wrong passwords from one address for many emails get that address refused, the right password too, and no other address", async ({ browser }) => {
  const attacker = await clientAt("198.51.100.23");
  for (let i = 0; i < 30; i++) expect(await signInError(attacker, { email: `nobody-${i}@example.test`, password: "guess" })).toBe("CredentialsSignin");

  const wait = throttledFor(await signInError(attacker, user));
  expect(wait).toBeGreaterThan(14 * 60);
  expect(wait).toBeLessThanOrEqual(15 * 60);
  // Neither an address the client writes into X-Forwarded-For itself nor the server's own header chooses its bucket.
  const spoofing = await clientAt("203.0.113.5, 198.51.100.23", { "x-tollgate-client-address": "192.0.2.77" });
  throttledFor(await signInError(spoofing, user));
  expect(await signInError(await clientAt("192.0.2.77"), user)).toBeNull();

  // What a person at that address sees, in English and Chinese.
  const context = await browser.newContext({ baseURL: server.baseUrl, extraHTTPHeaders: { "x-forwarded-for": "198.51.100.23" } });
  const page = await context.newPage();
  await page.goto("/login");
  await signInWithForm(page, user);
  await expect(page.getByRole("alert").filter({ hasText: "Too many failed sign-in attempts. Try again in 15 minutes." })).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
  await saveScreenshot(page, "login-throttled-address");
  await context.addCookies([{ name: "tollgate-locale", value: "zh", url: server.baseUrl }]);
  await page.reload();
  await signInWithForm(page, user);
  await expect(page.getByRole("alert").filter({ hasText: "登录失败次数过多，请15分钟后再试。" })).toBeVisible();
  await saveScreenshot(page, "login-throttled-address-zh");
  await context.close();
});

test("wrong passwords for an account from another address make its owner wait seconds, not lock them out", async ({ browser }) => {
  // The attacker waits out each delay and guesses again: after three free failures 1 s, 2 s, 4 s, then 8 s.
  const attacker = await clientAt("198.51.100.66");
  const waits: number[] = [];
  for (let guess = 0; guess < 20 && waits.at(-1) !== 8; guess++) {
    const error = await signInError(attacker, { ...victim, password: `guess-${guess}` });
    if (error === "CredentialsSignin") continue;
    waits.push(throttledFor(error));
    if (waits.at(-1) !== 8) await new Promise((r) => setTimeout(r, waits.at(-1)! * 1000));
  }
  expect(waits).toEqual([1, 2, 4, 8]);

  // The owner, elsewhere, is told to wait at most those seconds, and is then signed in.
  const context = await browser.newContext({ baseURL: server.baseUrl, extraHTTPHeaders: { "x-forwarded-for": "192.0.2.140" } });
  const page = await context.newPage();
  await page.goto("/login");
  await signInWithForm(page, victim);
  const alert = page.getByRole("alert").filter({ hasText: /Too many failed sign-in attempts\. Try again in \d seconds?\./ });
  await expect(alert).toBeVisible();
  await saveScreenshot(page, "login-throttled-account");
  const seconds = Number(/in (\d) second/.exec(await alert.innerText())![1]);
  expect(seconds).toBeLessThanOrEqual(8);
  await page.waitForTimeout(seconds * 1000);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId("shell-user-email")).toHaveText(victim.email);
  await context.close();

  // The right password started the account's count again: the attacker's next guess is not delayed.
  expect(await signInError(attacker, { ...victim, password: "guess-again" })).toBe("CredentialsSignin");
});

import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { request as playwrightRequest, type APIRequestContext, type Page } from "@playwright/test";
import { adminCommand } from "./admin";
import { expect, saveScreenshot, test } from "./fixtures";
import { startServer, type RunningServer } from "./server";

/**
 * The dashboard's sign-in throttle through the production server: per client address, per address
 * and email, the email's backoff against guesses spread over many addresses, and addresses the
 * client cannot choose. A server of this spec's own, so the addresses it blocks never refuse
 * another spec's sign-ins; TRUST_PROXY=1 and the test plays the reverse proxy, appending each
 * simulated client's address to X-Forwarded-For.
 */

let server: RunningServer;
const user = { email: "", password: "" };
const victim = { email: "", password: "" };
const target = { email: "", password: "" };
const contexts: APIRequestContext[] = [];

test.describe.configure({ mode: "serial", timeout: 180_000 });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-login-")), "server.log");
  server = await startServer(process.cwd(), { logFile, env: { TRUST_PROXY: "1", SEED_DEMO: "false" } });
  const admin = (argv: string[]) => adminCommand(argv, server.dataDir) as Promise<Record<string, string>>;
  const suffix = crypto.randomBytes(4).toString("hex");
  const accountId = (await admin(["accounts", "create", "--name", `e2e login ${suffix}`])).account_id;
  for (const [who, name] of [[user, "user"], [victim, "victim"], [target, "target"]] as const) {
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

test("150 s of wrong passwords for a user from one address: every sign-in of theirs from another address succeeds", async () => {
  test.setTimeout(300_000);
  const attacker = await clientAt("198.51.100.66");
  const owner = await clientAt("192.0.2.140");
  const deadline = Date.now() + 150_000;

  // The attacker guesses without pause (a breath of 100 ms between guesses, for the shared
  // machine), whatever it is told; refused guesses count nothing, so this is its best rate.
  const attack = { tried: 0, wrong: 0, refused: 0, waits: [] as number[] };
  const attacking = (async () => {
    while (Date.now() < deadline) {
      const error = await signInError(attacker, { ...victim, password: `guess-${attack.tried}` });
      attack.tried++;
      if (error === "CredentialsSignin") attack.wrong++;
      else {
        attack.refused++;
        attack.waits.push(throttledFor(error));
      }
      await sleep(100);
    }
  })();
  // Meanwhile the user signs in every 5 s from their own address.
  const signIns = { tried: 0, succeeded: 0, errors: [] as string[] };
  while (Date.now() < deadline) {
    const error = await signInError(owner, victim);
    signIns.tried++;
    if (error === null) signIns.succeeded++;
    else signIns.errors.push(error);
    await sleep(5_000);
  }
  await attacking;
  console.log(
    `one-address attack, 150 s: user sign-ins tried ${signIns.tried}, succeeded ${signIns.succeeded}; ` +
      `attacker guesses sent ${attack.tried}, checked (wrong) ${attack.wrong}, refused ${attack.refused}, told to wait ${Math.min(...attack.waits)}–${Math.max(...attack.waits)} s`,
  );
  expect(signIns.errors).toEqual([]);
  expect(signIns.tried).toBeGreaterThanOrEqual(20);
  expect(signIns.succeeded).toBe(signIns.tried);
  // What stopped the attacker is its own pair: ten wrong passwords, then a quarter of an hour.
  expect(attack.wrong).toBe(10);
  expect(Math.min(...attack.waits)).toBeGreaterThan(15 * 60 - 160);
});

test("guesses spread over 50 addresses are slowed to a shared backoff of seconds, and the user still gets straight in", async ({ browser }) => {
  test.setTimeout(240_000);
  const attackers = await Promise.all(Array.from({ length: 50 }, (_, i) => clientAt(`198.18.0.${i + 1}`)));
  // Each address's first guess is checked: it has no failure of its own yet.
  for (const [i, attacker] of attackers.entries()) expect(await signInError(attacker, { ...target, password: `first-${i}` })).toBe("CredentialsSignin");

  // Then for 60 s the addresses take turns as fast as they are answered; every guess after the
  // first shares the email's gate: one through, then 1 s, 2 s, 4 s, 8 s, 16 s, 30 s …
  const later = { tried: 0, checked: 0, waits: [] as number[] };
  const owner = await clientAt("192.0.2.150");
  const ownerSignIns = { tried: 0, succeeded: 0 };
  const deadline = Date.now() + 60_000;
  for (let turn = 0; ; turn++) {
    const error = await signInError(attackers[turn % attackers.length], { ...target, password: `later-${turn}` });
    later.tried++;
    if (error === "CredentialsSignin") {
      later.checked++;
      // Stop just after a guess went through: the gate is then closed for the browser below.
      if (Date.now() >= deadline) break;
    } else later.waits.push(throttledFor(error));
    if (turn % 100 === 50) {
      ownerSignIns.tried++;
      if ((await signInError(owner, target)) === null) ownerSignIns.succeeded++;
    }
    await sleep(50);
  }
  const seen = [...new Set(later.waits)].sort((a, b) => a - b);
  console.log(
    `spread attack, 50 addresses: 50 first guesses checked; then ${later.tried} guesses in ${Math.round((Date.now() - deadline + 60_000) / 1000)} s, ` +
      `${later.checked} checked, ${later.waits.length} told to wait (${seen[0]}–${seen.at(-1)} s); user sign-ins meanwhile ${ownerSignIns.succeeded}/${ownerSignIns.tried}`,
  );
  // Gate openings at 0, 1, 3, 7, 15, 31, 61 s: seven in a minute at most, whoever asks.
  expect(later.checked).toBeGreaterThanOrEqual(5);
  expect(later.checked).toBeLessThanOrEqual(8);
  expect(later.waits.length).toBeGreaterThan(later.checked * 10);
  expect(Math.max(...later.waits)).toBeLessThanOrEqual(30);
  expect(Math.max(...later.waits)).toBeGreaterThan(16);
  expect(ownerSignIns.tried).toBeGreaterThan(0);
  expect(ownerSignIns.succeeded).toBe(ownerSignIns.tried);

  // What a guesser at one of those addresses sees: a wait of seconds.
  const attackerPage = await browser.newContext({ baseURL: server.baseUrl, extraHTTPHeaders: { "x-forwarded-for": "198.18.0.7" } });
  const page = await attackerPage.newPage();
  await page.goto("/login");
  await signInWithForm(page, { ...target, password: "one-more-guess" });
  const alert = page.getByRole("alert").filter({ hasText: /Too many failed sign-in attempts\. Try again in \d+ seconds?\./ });
  await expect(alert).toBeVisible();
  await saveScreenshot(page, "login-throttled-account");
  expect(Number(/in (\d+) second/.exec(await alert.innerText())![1])).toBeLessThanOrEqual(30);
  await attackerPage.close();

  // The user, from an address where they typed no wrong password, is signed in at once.
  const context = await browser.newContext({ baseURL: server.baseUrl, extraHTTPHeaders: { "x-forwarded-for": "192.0.2.151" } });
  const userPage = await context.newPage();
  await userPage.goto("/login");
  await signInWithForm(userPage, target);
  await expect(userPage).toHaveURL(/\/$/);
  await expect(userPage.getByTestId("shell-user-email")).toHaveText(target.email);
  await context.close();
});

import type { Page } from "@playwright/test";
import { adminCommand, canSeed, seedUser, type SeededUser } from "./admin";
import { expect, signIn, test, screenshotBoth, screenshotPanel } from "./fixtures";
import { callTool } from "./seeding";

/**
 * Names over ids: the Ledger says which tool each Call's row charged, Usage which key made each
 * event, the Activity log reads as words (a budget's key by its name, amounts in credits, no raw
 * field names or `null`), and the Playground reuses its key instead of making another each visit.
 */
test.describe.configure({ mode: "serial" });
test.skip(!canSeed(), "seeds its own accounts through the admin channel");

const COMPOUND = "builtin.finance.compound_interest"; // 1 credit

async function dashboardApi(page: Page, method: "GET" | "PUT" | "DELETE", path: string, body?: unknown) {
  const token = ((await (await page.request.get("/api/dashboard/token")).json()) as { access_token: string }).access_token;
  const res = await page.request.fetch(`/api/v1${path}`, { method, headers: { Authorization: `Bearer ${token}` }, data: body });
  expect(res.status(), `${method} ${path}: ${await res.text()}`).toBe(200);
  return (await res.json()).data;
}

interface KeyItem {
  api_key_id: string;
  name: string;
  prefix: string;
  revoked_at: string | null;
  created_by: string | null;
}

let owner: SeededUser;
let key: { api_key_id: string; api_key: string; prefix: string };

test.beforeAll(async () => {
  owner = await seedUser({ label: "names", credits: 100 });
  key = (await adminCommand(["keys", "create", "--account", owner.accountId, "--name", "ci-bot"])) as typeof key;
  await callTool(process.env.E2E_BASE_URL!, key.api_key, COMPOUND, { principal: 100, annual_rate_percent: 5, years: 2 });
});

test("the Ledger names the tool each Call's row charged, and Usage the key that made each event", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, owner);
  await page.goto("/ledger");
  const charge = page.getByTestId("ledger-row").filter({ hasText: "\u22121" });
  await expect(charge).toHaveCount(1);
  const tool = charge.getByTestId("tool-label");
  await expect(tool).toContainText("Compound interest");
  await expect(tool).toContainText(COMPOUND);
  await expect(page.getByRole("columnheader", { name: "Tool" })).toBeVisible();
  // The welcome grant charged no tool.
  await expect(page.getByTestId("ledger-row").filter({ hasText: "Welcome bonus" }).getByTestId("tool-label")).toHaveCount(0);
  await screenshotBoth(page, "ledger-tool");
  await charge.getByRole("button", { name: "Details" }).click();
  await expect(page.getByTestId("entry-panel").getByTestId("tool-label")).toContainText(COMPOUND);
  await screenshotPanel(page, "ledger-tool-panel");
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "中文" }).click();
  await expect(page.getByRole("columnheader", { name: "工具" })).toBeVisible();
  await screenshotBoth(page, "ledger-tool-zh");
  await page.getByRole("button", { name: "EN", exact: true }).click();

  await page.goto("/usage");
  const event = page.getByTestId("usage-row").filter({ hasText: COMPOUND });
  await expect(event.getByTestId("usage-key")).toContainText("ci-bot");
  await event.getByRole("button", { name: "Details" }).click();
  await expect(page.getByTestId("event-key-name")).toHaveText("ci-bot");
});

test("the Activity log reads as words: a budget on a key by the key's name, its limit in credits, no raw field or null", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, owner);
  await dashboardApi(page, "PUT", "/auth/budgets", { scope: "api_key", scope_id: key.api_key_id, limit_credits: 1, period: "month", time_zone: "Asia/Shanghai" });
  await dashboardApi(page, "PUT", "/auth/budgets", { scope: "account", limit_credits: 50, period: "none" });
  await dashboardApi(page, "PUT", "/auth/alerts", { low_balance_credits: 5 });
  await page.goto("/activity");
  const rows = page.getByTestId("activity-row");
  const keyBudget = rows.filter({ has: page.locator('[data-action="budget.set"]') }).filter({ hasText: "ci-bot" });
  await expect(keyBudget).toHaveCount(1);
  await expect(keyBudget.getByTestId("activity-change")).toContainText("Applies to: API key “ci-bot”");
  await expect(keyBudget.getByTestId("activity-change")).toContainText("Limit: 1 credit");
  await expect(keyBudget.getByTestId("activity-change")).toContainText("Period: monthly");
  await expect(keyBudget).toContainText("Budget");
  const accountBudget = rows.filter({ has: page.locator('[data-action="budget.set"]') }).filter({ hasText: "Whole account" });
  await expect(accountBudget.getByTestId("activity-change")).toContainText("Limit: 50 credits");
  await expect(rows.filter({ has: page.locator('[data-action="alerts.updated"]') }).getByTestId("activity-change")).toContainText("Low balance alert: none → 5 credits");
  for (const raw of ["scope_id", "limit_credits", "low_balance_credits", "null"]) await expect(page.getByTestId("activity-change").filter({ hasText: raw })).toHaveCount(0);
  await screenshotBoth(page, "activity-words");
  await page.getByRole("button", { name: "中文" }).click();
  await expect(keyBudget.getByTestId("activity-change")).toContainText("上限: 1 积分");
  await screenshotBoth(page, "activity-words-zh");
  await page.getByRole("button", { name: "EN", exact: true }).click();
});

test("the Playground reuses its key while it is live, replaces (revokes) the user's previous one when this browser lost it, and says when it was revoked", async ({ page }) => {
  test.setTimeout(120_000);
  const user = await seedUser({ label: "pgkey", credits: 10 });
  await signIn(page, user);
  const playgroundKeys = async () => ((await dashboardApi(page, "GET", "/auth/api-keys")).items as KeyItem[]).filter((k) => k.name === "playground");

  await page.goto("/playground");
  await page.getByRole("button", { name: "Create a playground key" }).click();
  const prefix = page.getByTestId("key-picker-prefix");
  await expect(prefix).toContainText("tg_");
  const first = (await prefix.textContent())!.replace("…", "");

  // Every later visit calls with the same key: no second one is made.
  for (let visit = 0; visit < 2; visit++) {
    await page.goto("/playground");
    await expect(prefix).toHaveText(`${first}…`);
    await expect(page.getByRole("button", { name: "Create a playground key" })).toHaveCount(0);
  }
  let keys = await playgroundKeys();
  expect(keys.map((k) => [k.prefix, k.revoked_at])).toEqual([[first, null]]);

  // Another browser (storage cleared): the live key's secret is not here, so a new one replaces it.
  await page.evaluate(() => window.localStorage.clear());
  await page.goto("/playground");
  await expect(page.getByTestId("key-picker-replaces")).toContainText(`${first}…`);
  await screenshotBoth(page, "playground-replace-key");
  await page.getByRole("button", { name: "Replace the playground key" }).click();
  await expect(prefix).toContainText("tg_");
  const second = (await prefix.textContent())!.replace("…", "");
  expect(second).not.toBe(first);
  await expect.poll(async () => (await playgroundKeys()).filter((k) => k.revoked_at === null).map((k) => k.prefix)).toEqual([second]);
  keys = await playgroundKeys();
  expect(keys.find((k) => k.prefix === first)?.revoked_at).not.toBeNull();

  // Revoked elsewhere (the Keys page of another tab): the next visit forgets it and says so.
  await dashboardApi(page, "DELETE", `/auth/api-keys/${keys.find((k) => k.prefix === second)!.api_key_id}`);
  await page.goto("/playground");
  await expect(page.getByTestId("key-picker-lost")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create a playground key" })).toBeVisible();
  await expect(page.getByTestId("key-picker-replaces")).toHaveCount(0);
  await screenshotBoth(page, "playground-key-revoked");
});

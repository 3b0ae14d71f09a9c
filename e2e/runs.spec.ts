import type { Page } from "@playwright/test";
import { canSeed, seedUser, type SeededUser } from "./admin";
import { expect, signIn, test, screenshotBoth } from "./fixtures";
import { callTool, createAgentRuntime, dashboardToken, delegationToken } from "./seeding";

/**
 * Agent runs in the navigation: an account's runs, each made by an Agent Runtime with a delegation
 * token (one capped at 5 credits, one without a cap), are listed newest first with the token's cap
 * and what was spent against it, as `GET /auth/runs` gives them; a run's page shows its cap used.
 */
test.describe.configure({ mode: "serial" });
test.skip(!canSeed(), "seeds its own account through the admin channel");

const COMPOUND = "builtin.finance.compound_interest"; // 1 credit
const LOAN = "builtin.finance.loan_payment"; // 1 credit
const EVALUATE = "builtin.math.evaluate"; // 0.5 credit

interface Seeded {
  owner: SeededUser;
  capped: string;
  uncapped: string;
}
let seeded: Seeded | undefined;

/** Two runs of one Agent Runtime: the first capped at 5 credits (two 1-credit Calls), the second, later, without a cap. */
async function seed(page: Page, baseURL: string): Promise<Seeded> {
  if (seeded) return seeded;
  const owner = await seedUser({ label: "runs", credits: 100 });
  const runtime = await createAgentRuntime("Runs Runtime");
  await signIn(page, owner);
  const subject = await dashboardToken(page);
  const exchange = (runId: string, maxCredits?: string) => delegationToken(baseURL, runtime, subject, { runId, model: "e2e-model", maxCredits });
  const suffix = owner.accountId.slice(-6);
  const capped = `run-capped-${suffix}`;
  const uncapped = `run-open-${suffix}`;
  const first = await exchange(capped, "5");
  await callTool(baseURL, first, COMPOUND, { principal: 2000, annual_rate_percent: 3, years: 1 });
  await callTool(baseURL, first, LOAN, { principal: 2000, annual_rate_percent: 3, months: 12 });
  const second = await exchange(uncapped);
  await callTool(baseURL, second, EVALUATE, { expression: "6 * 7" });
  seeded = { owner, capped, uncapped };
  return seeded;
}

interface RunsData {
  total: number;
  items: { run_id: string; max_credits: number | null; call_count: number; settled_credits: number; delegation_count: number; delegations: { max_credits: number | null; spent_credits: number }[] }[];
}

test("Runs is in the navigation and lists the account's runs newest first, each with its delegation cap and what it spent", async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const { capped, uncapped } = await seed(page, baseURL!);

  const response = page.waitForResponse((r) => r.url().includes("/api/v1/auth/runs?") && r.request().method() === "GET");
  await page.getByRole("navigation").getByRole("link", { name: "Runs", exact: true }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByRole("heading", { name: "Agent runs", level: 1 })).toBeVisible();
  const data = (await (await response).json()).data as RunsData;
  expect(data.total).toBe(2);
  expect(data.items.map((r) => r.run_id)).toEqual([uncapped, capped]);
  expect(data.items[1]).toMatchObject({ max_credits: 5, call_count: 2, settled_credits: 2, delegation_count: 1, delegations: [{ max_credits: 5, spent_credits: 2 }] });
  expect(data.items[0]).toMatchObject({ max_credits: null, call_count: 1, settled_credits: 0.5, delegation_count: 1 });

  const rows = page.getByTestId("runs-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0).getByTestId("run-link")).toHaveText(uncapped);
  await expect(rows.nth(0).getByTestId("run-cap")).toHaveText("No cap");
  await expect(rows.nth(0).getByTestId("run-spent")).toHaveText("0.5 credits");
  await expect(rows.nth(1).getByTestId("run-link")).toHaveText(capped);
  await expect(rows.nth(1).getByTestId("run-cap")).toHaveText("5 credits");
  await expect(rows.nth(1).getByTestId("run-spent")).toHaveText("2 credits");
  await expect(rows.nth(1).getByTestId("run-calls")).toHaveText("2");
  await expect(rows.nth(1).getByTestId("run-cap-meter")).toHaveAttribute("aria-valuenow", "40");
  await expect(rows.nth(1)).toContainText("2 of 5 credits used");
  await expect(rows.nth(1)).toContainText("Runs Runtime · e2e-model");
  await screenshotBoth(page, "runs");

  await test.step("a run opens its page: the cap, what was spent under the token, and the bar of the cap used", async () => {
    await rows.nth(1).getByTestId("run-link").click();
    await expect(page).toHaveURL(new RegExp(`/runs/${capped}$`));
    const card = page.getByTestId("run-cap-card");
    await expect(card.getByTestId("run-cap")).toHaveText("5 credits");
    await expect(card.getByTestId("run-cap-spent")).toHaveText("2 credits");
    await expect(card.getByTestId("run-cap-meter")).toHaveAttribute("aria-valuenow", "40");
    await expect(page.getByTestId("run-event")).toHaveCount(2);
    await screenshotBoth(page, "run-cap");
    await page.getByTestId("run-to-runs").click();
    await expect(page).toHaveURL(/\/runs$/);
  });

  await test.step("in Chinese", async () => {
    await page.getByRole("button", { name: "中文" }).click();
    await expect(page.getByRole("heading", { name: "智能体运行", level: 1 })).toBeVisible();
    await expect(page.getByTestId("runs-row").nth(1).getByTestId("run-cap")).toHaveText("5 积分");
    await expect(page.getByTestId("runs-row").nth(0).getByTestId("run-cap")).toHaveText("无上限");
    await screenshotBoth(page, "runs-zh");
    await page.goto(`/runs/${capped}`);
    await expect(page.getByTestId("run-cap-card")).toContainText("委托额度上限");
    await screenshotBoth(page, "run-cap-zh");
    await page.getByRole("button", { name: "EN", exact: true }).click();
    await expect(page.getByRole("heading", { name: "Agent run", level: 1 })).toBeVisible();
  });
});

test("another account's run is not found on the Runs page, and an account without runs says how a run appears", async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const { capped } = await seed(page, baseURL!);
  await signIn(page, await seedUser({ label: "runs-other", credits: 10 }));
  await page.goto("/runs");
  await expect(page.getByTestId("runs-empty")).toContainText("run_id");
  await page.goto(`/runs/${capped}`);
  await expect(page.getByTestId("run-empty")).toBeVisible();
  await expect(page.getByTestId("run-cap-card")).toHaveCount(0);
});

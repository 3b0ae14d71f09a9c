import { adminCommand, canSeed, seedUser } from "./admin";
import { expect, signIn, test, screenshotBoth, screenshotPanel } from "./fixtures";
import { expectNoSeriousViolations } from "./axe";

/**
 * Budgets in the dashboard: the owner sets one, Calls spend it (and the one that would cross it is
 * refused), the bar and the Overview follow; a member sees the budgets but cannot change them.
 */
test.skip(!canSeed(), "needs the server's admin channel to seed its own account");

test("an owner sets a daily budget, Calls spend it up to the limit, the next is refused, and the Overview shows it", async ({ page, baseURL }) => {
  const owner = await seedUser({ label: "budget-owner", credits: 100 });
  const { api_key: apiKey } = (await adminCommand(["keys", "create", "--account", owner.accountId, "--name", "agent"])) as { api_key: string };
  const call = async (i: number) => {
    const res = await fetch(`${baseURL}/api/v1/tools/execute`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ tool_id: "builtin.finance.compound_interest", parameters: { principal: 100 + i, annual_rate_percent: 5, years: 2 } }),
    });
    return { status: res.status, body: (await res.json()) as { error_message?: string; execution_outcome?: { reason_code: string } } };
  };

  await signIn(page, owner);
  await page.goto("/budgets");
  const section = page.getByTestId("budgets-section");
  await expect(section.getByTestId("budgets-empty")).toBeVisible();
  await section.getByLabel("Limit (credits)").fill("3");
  await section.getByLabel("Per", { exact: true }).selectOption("day");
  await section.getByRole("button", { name: "Save budget" }).click();
  await expect(section.getByTestId("budget-saved")).toBeVisible();
  const row = section.getByTestId("budget-row");
  await expect(row).toContainText("Whole account");
  await expect(row).toContainText("0 / 3 · 0%");

  for (let i = 0; i < 3; i++) expect((await call(i)).status).toBe(200);
  const refused = await call(3);
  expect(refused.status).toBe(402);
  expect(refused.body.execution_outcome?.reason_code).toBe("billing.budget_exceeded");
  expect(refused.body.error_message).toMatch(/^Budget exceeded: The account's daily budget bud_\w+ of 3 credits has 0 credits left/);

  await page.reload();
  // The first refusal told the owner: the budget has begun to refuse Calls.
  await expect(page.getByText("A budget of 3 credits has begun to refuse Calls: one that may cost 1 credit was refused.")).toBeVisible();
  await expect(row).toContainText("3 / 3 · 100%");
  await expect(row).toContainText("Limit reached");
  await expect(row.getByTestId("budget-meter")).toHaveAttribute("aria-valuenow", "100");
  await screenshotBoth(page, "budgets");

  await page.goto("/");
  await expect(page.getByTestId("tightest-budget")).toContainText("Whole account");
  await expect(page.getByTestId("tightest-budget")).toContainText("3 / 3 · 100%");
  await screenshotBoth(page, "overview-budget");

  await page.getByRole("button", { name: "中文" }).click();
  await expect(page.getByTestId("tightest-budget")).toContainText("最紧的预算");
  await page.goto("/budgets");
  await expect(page.getByTestId("budgets-section")).toContainText("整个账户");
  await expect(page.getByTestId("budget-row")).toContainText("已达上限");
  await screenshotBoth(page, "budgets-zh");
  await page.getByRole("button", { name: "EN", exact: true }).click();

  // Raising the limit keeps what was spent, and the Call goes through again.
  await page.getByRole("button", { name: "Edit the budget of Whole account" }).click();
  await section.getByLabel("Limit (credits)").fill("5");
  await section.getByRole("button", { name: "Save budget" }).click();
  await expect(row).toContainText("3 / 5 · 60%");
  expect((await call(4)).status).toBe(200);

  await page.getByRole("button", { name: "Remove the budget of Whole account" }).click();
  await page.getByTestId("remove-budget-dialog").getByRole("button", { name: "Remove budget" }).click();
  await expect(section.getByTestId("budgets-empty")).toBeVisible();
});

test("a member sees the budgets but cannot change them", async ({ page }) => {
  const owner = await seedUser({ label: "budget-team", credits: 10 });
  await adminCommand(["budgets", "set", "--account", owner.accountId, "--credits", "8", "--period", "month", "--tz", "Asia/Shanghai"]);
  const email = `e2e-member-${owner.accountId}@example.test`;
  await adminCommand(["users", "create", "--account", owner.accountId, "--email", email, "--password", "member-password-1", "--role", "member"]);
  await signIn(page, { email, password: "member-password-1" });
  await page.goto("/budgets");
  const section = page.getByTestId("budgets-section");
  await expect(section).toContainText("Only the account's owner can set or change budgets.");
  await expect(section.getByTestId("budget-form")).toHaveCount(0);
  await expect(section.getByTestId("budget-row")).toContainText("Month · Asia/Shanghai");
  await expect(section.getByRole("button", { name: /Remove/ })).toHaveCount(0);
  await screenshotBoth(page, "budgets-member");
});

test("the Console shows a budget's refusal as a refusal of the Call: which budget, what is left, when it resets; no field error", async ({ page }) => {
  const owner = await seedUser({ label: "budget-console", credits: 50 });
  await adminCommand(["budgets", "set", "--account", owner.accountId, "--credits", "0.5", "--period", "day", "--tz", "Asia/Shanghai"]);
  await signIn(page, owner);
  await page.goto("/console?tool_id=builtin.finance.compound_interest");
  await page.getByRole("button", { name: "Create a playground key" }).click();
  await expect(page.getByTestId("key-picker-prefix")).toContainText("tg_");
  await expect(page.getByLabel(/^principal/)).toHaveValue("10000");
  // Probe says it before the Call: the tightest budget's headroom, and that this Call would be refused.
  await page.getByRole("button", { name: "Probe" }).click();
  await expect(page.getByTestId("probe-quote")).toHaveText("1 credit");
  const headroom = page.getByTestId("probe-budget");
  await expect(headroom).toContainText("Tightest budget — Whole account: its daily budget of 0.5 credits has 0.5 credits left.");
  await expect(headroom).toContainText("A Call now would be refused by this budget");
  await page.getByRole("button", { name: "Call", exact: true }).click();
  await expect(page.getByTestId("confirm-budget")).toHaveAttribute("data-would-refuse", "true");
  await screenshotPanel(page, "console-confirm-budget");
  await expectNoSeriousViolations(page, "Console confirm dialog");
  await page.getByTestId("confirm-call").getByRole("button", { name: "Call and pay" }).click();

  const result = page.getByTestId("call-result");
  await expect(result.getByTestId("call-status")).toContainText("HTTP 402");
  const refusal = result.getByTestId("budget-refusal");
  await expect(refusal).toContainText("Refused by a budget: nothing was spent");
  await expect(refusal).toContainText("Whole account: its daily budget of 0.5 credits has 0.5 credits left. This Call may cost 1 credit.");
  // The reset in the page's zone (the browser's: UTC here), with the year and the zone named.
  await expect(result.getByTestId("budget-refusal-reset")).toContainText(/It resets 20\d\d-\d\d-\d\d \d\d:\d\d/);
  await expect(result.getByTestId("budget-refusal-reset")).toContainText("(UTC)");
  await expect(page.getByTestId("field-error")).toHaveCount(0);
  await expect(page.getByText(/field error/)).toHaveCount(0);
  await screenshotBoth(page, "console-budget-refusal");
  await expectNoSeriousViolations(page, "Console budget refusal");

  // In Chinese (the language switch reloads the page: the Call again, refused again).
  await page.getByRole("button", { name: "中文" }).click();
  await page.getByRole("button", { name: "调用", exact: true }).click();
  await page.getByTestId("confirm-call").getByRole("button").last().click();
  await expect(refusal).toContainText("被预算拒绝：未扣任何积分");
  await expect(refusal).toContainText("整个账户：每日预算 0.5 积分，剩余 0.5 积分。");
  await screenshotBoth(page, "console-budget-refusal-zh");
});

import fs from "node:fs/promises";
import type { Page } from "@playwright/test";
import { adminCommand, seedUser, type SeededUser } from "./admin";
import { expect, signIn, test, screenshotBoth } from "./fixtures";
import { callTool, createAgentRuntime, dashboardToken, delegationToken } from "./seeding";

/**
 * Spend attribution in the dashboard: an account's Calls made with two API keys and through an
 * agent's delegation token (with a run_id and a model) are grouped on the Spend page exactly as
 * the breakdown API groups them; a group opens Usage filtered to it, the agent run opens its own
 * page, and the Keys page shows each key's spend this period next to its budget.
 */
test.describe.configure({ mode: "serial" });

const COMPOUND = "builtin.finance.compound_interest"; // 1 credit
const LOAN = "builtin.finance.loan_payment"; // 1 credit
const EVALUATE = "builtin.math.evaluate"; // 0.5 credit
const TEMPERATURE = "builtin.convert.temperature"; // free

interface Seeded {
  owner: SeededUser;
  keyA: { api_key_id: string; api_key: string; prefix: string };
  keyB: { api_key_id: string; api_key: string; prefix: string };
  runId: string;
}
let seeded: Seeded | undefined;

/**
 * Two keys' Calls, then two Calls of one agent run through a delegation token that an agent
 * runtime (a confidential OAuth client) exchanged for the user's own access token.
 */
async function seed(page: Page, baseURL: string): Promise<Seeded> {
  if (seeded) return seeded;
  const owner = await seedUser({ label: "spend", credits: 100 });
  const keyA = (await adminCommand(["keys", "create", "--account", owner.accountId, "--name", "agent-a"])) as Seeded["keyA"];
  const keyB = (await adminCommand(["keys", "create", "--account", owner.accountId, "--name", "batch-b"])) as Seeded["keyB"];
  await callTool(baseURL, keyA.api_key, COMPOUND, { principal: 1000, annual_rate_percent: 5, years: 2 });
  await callTool(baseURL, keyA.api_key, COMPOUND, { principal: 1001, annual_rate_percent: 5, years: 2 });
  await callTool(baseURL, keyA.api_key, LOAN, { principal: 5000, annual_rate_percent: 4, months: 24 });
  await callTool(baseURL, keyB.api_key, EVALUATE, { expression: "2 + 3 * 4" });
  await callTool(baseURL, keyB.api_key, TEMPERATURE, { value: 100, from: "C", to: "F" });

  const runtime = await createAgentRuntime("E2E Runtime");
  await signIn(page, owner);
  const runId = `run-e2e-${owner.accountId.slice(-6)}`;
  const delegation = await delegationToken(baseURL, runtime, await dashboardToken(page), { runId, model: "e2e-model", maxCredits: "5" });
  await callTool(baseURL, delegation, COMPOUND, { principal: 2000, annual_rate_percent: 3, years: 1 });
  await callTool(baseURL, delegation, LOAN, { principal: 2000, annual_rate_percent: 3, months: 12 });
  seeded = { owner, keyA, keyB, runId };
  return seeded;
}

/** The page's breakdown request, and the same query asked of the API with the user's own token. */
async function breakdownOf(page: Page, load: () => Promise<unknown>) {
  const response = page.waitForResponse((r) => r.url().includes("/api/v1/auth/usage/breakdown?") && r.request().method() === "GET");
  await load();
  const url = new URL((await response).url());
  const res = await page.request.get(url.pathname + url.search, { headers: { Authorization: `Bearer ${await dashboardToken(page)}` } });
  expect(res.status()).toBe(200);
  return { params: url.searchParams, data: (await res.json()).data as BreakdownData };
}

interface BreakdownData {
  totals: { calls: number; charged_calls: number; settled_credits: number; refunded_credits: number };
  groups: { key: Record<string, string | null>; label: Record<string, string | null>; other: boolean; calls: number; settled_credits: number }[];
  tz: string;
}

test("the Spend page groups the Calls by tool, key and agent run with the API's figures, and a group opens Usage filtered to it", async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const { keyA, runId } = await seed(page, baseURL!);

  const byTool = await breakdownOf(page, () => page.goto("/spend"));
  expect(byTool.params.get("group_by")).toBe("tool");
  expect(byTool.params.get("bucket")).toBe("day");
  expect(byTool.params.get("tz")).toBe("UTC");
  expect(byTool.data.totals).toMatchObject({ calls: 7, charged_calls: 6, settled_credits: 5.5, refunded_credits: 0 });
  await expect(page.getByTestId("spend-total-calls")).toHaveText(String(byTool.data.totals.calls));
  await expect(page.getByTestId("spend-total-charged")).toHaveText(String(byTool.data.totals.charged_calls));
  await expect(page.getByTestId("spend-total-settled")).toHaveText("5.5");
  await expect(page.getByTestId("tz-current")).toHaveText("UTC");
  await expect(page.getByTestId("spend-chart").getByTestId("chart-axis-caption")).toHaveText("One bar = one day, UTC");
  const rows = page.getByTestId("spend-row");
  await expect(rows).toHaveCount(byTool.data.groups.length);
  // Largest spend first, as the API orders them: the compound interest tool (2 key Calls + 1 of the run).
  expect(byTool.data.groups[0]).toMatchObject({ key: { tool: COMPOUND }, calls: 3, settled_credits: 3 });
  for (const [i, g] of byTool.data.groups.entries()) {
    await expect(rows.nth(i).getByTestId("spend-calls")).toHaveText(String(g.calls));
    await expect(rows.nth(i).getByTestId("spend-settled")).toHaveText(String(g.settled_credits));
  }
  await expect(rows.first()).toContainText("Compound interest calculator");
  await screenshotBoth(page, "spend");

  // The CSV is the same query.
  const downloading = page.waitForEvent("download");
  await page.getByTestId("spend-export").click();
  const csv = await fs.readFile((await (await downloading).path())!, "utf8");
  expect(csv.split("\n")[0]).toBe("bucket_start,bucket_start_local,tz,tool,tool_label,calls,settled_credits,refunded_credits");
  expect(csv).toMatch(/,builtin\.finance\.compound_interest,Compound interest calculator,3,3(\.0+)?,0(\.0+)?\r?\n/);

  // By API key: the delegation token's Calls have none.
  const byKey = await breakdownOf(page, () => page.getByTestId("group-by").getByRole("button", { name: "API key" }).click());
  await expect(page).toHaveURL(/group_by=api_key/);
  await expect(page.getByTestId("spend-result")).toHaveAttribute("data-group-by", "api_key");
  expect(byKey.data.groups.map((g) => [g.key.api_key, g.calls, g.settled_credits])).toEqual([
    [keyA.api_key_id, 3, 3],
    [null, 2, 2],
    [expect.any(String), 2, 0.5],
  ]);
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText(`agent-a (${keyA.prefix}…)`);
  await expect(rows.nth(1)).toContainText("No API key (dashboard or OAuth tokens)");
  await expect(rows.nth(1).getByTestId("spend-usage-link")).toHaveCount(0);

  // By agent run: the run opens its page.
  const byRun = await breakdownOf(page, () => page.getByTestId("group-by").getByRole("button", { name: "Agent run" }).click());
  expect(byRun.data.groups.map((g) => [g.key.run_id, g.calls, g.settled_credits])).toEqual([
    [null, 5, 3.5],
    [runId, 2, 2],
  ]);
  await expect(rows.nth(0)).toContainText("Outside agent runs");
  await expect(rows.nth(1)).toContainText(runId);
  await expect(rows.nth(1).getByTestId("spend-run-link")).toHaveAttribute("href", `/runs/${runId}`);
  await screenshotBoth(page, "spend-by-run");

  // Back to tools: a row opens Usage filtered to that tool, over the same window, with a chip that clears it.
  await page.getByTestId("group-by").getByRole("button", { name: "Tool", exact: true }).click();
  await expect(page.getByTestId("spend-result")).toHaveAttribute("data-group-by", "tool");
  await rows.first().getByTestId("spend-usage-link").click();
  await expect(page).toHaveURL(new RegExp(`/usage\\?.*range=30d.*tool_id=${COMPOUND.replace(/\./g, "\\.")}`));
  await expect(page.getByTestId("usage-row")).toHaveCount(3);
  const chip = page.getByTestId("usage-attribution-filters").getByTestId("active-filter");
  await expect(chip).toHaveAttribute("data-filter", "tool_id");
  // The chip names the tool (once the page knows its name) and keeps the id as its title.
  await expect(chip).toContainText("Tool: Compound interest calculator");
  await expect(chip.locator(`[title="${COMPOUND}"]`)).toHaveCount(1);
  await expect(page.getByTestId("stat-events")).toHaveText("3");
  await screenshotBoth(page, "usage-filtered-by-tool");
  await chip.getByRole("button", { name: "Remove the Tool filter" }).click();
  await expect(page).not.toHaveURL(/tool_id=/);
  await expect(page.getByTestId("usage-row")).toHaveCount(7);
  // The run's usage events link to the run.
  await expect(page.getByTestId("usage-run-link")).toHaveCount(2);
});

test("an agent run lists its Calls oldest first with the run's totals, model and OAuth client", async ({ page, baseURL }) => {
  const { runId } = await seed(page, baseURL!);
  await signIn(page, seeded!.owner);
  await page.goto("/spend?group_by=run_id");
  await page.getByTestId("spend-run-link").first().click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await expect(page.getByRole("heading", { name: "Agent run", level: 1 })).toBeVisible();
  await expect(page.getByTestId("run-id")).toHaveText(runId);
  const events = page.getByTestId("run-event");
  await expect(events).toHaveCount(2);
  await expect(events.nth(0)).toContainText(COMPOUND);
  await expect(events.nth(1)).toContainText(LOAN);
  await expect(events.getByTestId("run-event-credits")).toHaveText(["1", "1"]);
  await expect(events.getByTestId("run-execution-link")).toHaveCount(2);
  await expect(page.getByTestId("run-total-calls")).toHaveText("2");
  await expect(page.getByTestId("run-total-settled")).toHaveText("2");
  await expect(page.getByTestId("run-model")).toHaveText("e2e-model");
  await expect(page.getByTestId("run-client")).toHaveText("E2E Runtime");
  await expect(page.getByTestId("run-outcomes")).toContainText("Charged");
  await screenshotBoth(page, "run");

  // Its execution link opens the Executions timeline of the first Call.
  await events.nth(0).getByTestId("run-execution-link").click();
  await expect(page).toHaveURL(/\/executions\?id=exe_/);

  // In Chinese, with the Spend page.
  await page.goto(`/runs/${runId}`);
  await page.getByRole("button", { name: "中文" }).click();
  await expect(page.getByRole("heading", { name: "智能体运行", level: 1 })).toBeVisible();
  await expect(page.getByTestId("run-event")).toHaveCount(2);
  await screenshotBoth(page, "run-zh");
  await page.goto("/spend");
  await expect(page.getByRole("heading", { name: "花费分析", level: 1 })).toBeVisible();
  await expect(page.getByTestId("group-by").getByRole("button", { name: "工具", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("spend-chart")).toContainText("按工具统计的结算积分");
  await screenshotBoth(page, "spend-zh");
  await page.getByRole("button", { name: "EN", exact: true }).click();
});

test("the Keys page shows each key's spend this period: its budget's period, else this month", async ({ page, baseURL }) => {
  const { owner, keyA, keyB } = await seed(page, baseURL!);
  await adminCommand(["budgets", "set", "--key", keyB.api_key_id, "--credits", "10", "--period", "month", "--tz", "UTC"]);
  await signIn(page, owner);
  const breakdown = page.waitForRequest((r) => r.url().includes("/api/v1/auth/usage/breakdown?"));
  await page.goto("/keys");
  const request = new URL((await breakdown).url());
  expect(request.searchParams.get("group_by")).toBe("api_key");
  const rowA = page.getByTestId("key-row").filter({ hasText: "agent-a" });
  const rowB = page.getByTestId("key-row").filter({ hasText: "batch-b" });
  await expect(rowA.getByTestId("key-period-spend")).toHaveAttribute("data-kind", "month");
  await expect(rowA.getByTestId("key-period-spend")).toContainText(`3since ${new Date().toISOString().slice(0, 8)}01`);
  await expect(rowB.getByTestId("key-period-spend")).toHaveAttribute("data-kind", "budget");
  await expect(rowB.getByTestId("key-period-spend")).toContainText("0.5 / 10 · 5%");
  await expect(rowB.getByTestId("key-period-spend")).toContainText(/Month budget \(UTC\), resets \d{4}-\d\d-01 00:00 \(UTC\)/);
  // Lifetime spend stays beside it.
  await expect(rowA.getByTestId("key-spent")).toHaveText("3");
  expect(keyA.api_key_id).not.toBe(keyB.api_key_id);
  await screenshotBoth(page, "keys-period-spend");
});

test("the Spend page of an account without usage says so", async ({ page }) => {
  const empty = await seedUser({ label: "spend-empty", credits: 5 });
  await signIn(page, empty);
  await page.goto("/spend?group_by=model");
  await expect(page.getByTestId("spend-empty")).toContainText("No spend in this period");
  await expect(page.getByTestId("group-by").getByRole("button", { name: "Model" })).toHaveAttribute("aria-pressed", "true");
  await screenshotBoth(page, "spend-empty");
});

import fs from "node:fs/promises";
import type { Page } from "@playwright/test";
import { adminCommand, canSeed, seedUser, type SeededUser } from "./admin";
import { DEMO_USER, expect, saveScreenshot, signIn, test, screenshotBoth, screenshotPanel } from "./fixtures";

/**
 * The dashboard's main path in a real browser against the production server: keys, Discover
 * and Inspect in two languages, Probe and Call, then the audit trail of that Call. Each test
 * seeds its own account (through the server's admin channel) so spending credits here never
 * changes the demo account that other specs assert on.
 */
/** Seeded with every empty database next to the demo user (lib/seed/seed-demo.ts). */
const SUPPORT_USER = { email: "support@tollgate.local", password: "tollgate-support" } as const;

async function freshUser(label: string, credits = 100): Promise<SeededUser | typeof DEMO_USER> {
  return canSeed() ? seedUser({ label, credits }) : DEMO_USER;
}

async function createPlaygroundKey(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Create a playground key" }).click();
  await expect(page.getByTestId("key-picker-prefix")).toContainText("tg_");
}

test.describe("API keys page", () => {
  test("creates a key shown once, lists it with its spend, and revokes it", async ({ page }) => {
    await signIn(page, await freshUser("keys"));
    await page.goto("/keys");
    await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
    await expect(page.getByTestId("keys-empty")).toBeVisible();
    await saveScreenshot(page, "keys-empty-desktop");

    await page.getByLabel("Name").fill("e2e agent");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByTestId("new-key-dialog");
    await expect(dialog).toBeVisible();
    const key = (await dialog.getByTestId("new-key-value").textContent()) ?? "";
    expect(key).toMatch(/^tg_/);
    await expect(dialog).toContainText("This is the only time the key is shown");
    // The dialog's MCP configuration connects an agent with the new key as it stands.
    const snippet = JSON.parse((await dialog.getByTestId("new-key-mcp").locator("pre").textContent()) ?? "{}");
    expect(snippet.mcpServers.tollgate).toEqual({ url: expect.stringMatching(/\/api\/v1\/mcp$/), headers: { Authorization: `Bearer ${key}` } });
    const init = await page.request.post(snippet.mcpServers.tollgate.url, {
      headers: { ...snippet.mcpServers.tollgate.headers, Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
      data: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } } },
    });
    expect(init.status()).toBe(200);
    expect((await init.json()).result.serverInfo.name).toBe("tollgate");
    await screenshotPanel(page, "keys-created-dialog");
    await dialog.getByRole("button", { name: "I have saved it" }).click();
    await expect(dialog).toBeHidden();

    const row = page.getByTestId("key-row").filter({ hasText: "e2e agent" });
    await expect(row).toContainText(key.slice(0, 11));
    await expect(row).toContainText("Active");
    await expect(row).not.toContainText(key);
    await expect(row.getByTestId("key-spent")).toHaveText("0");

    // The key works against the API until it is revoked.
    expect((await page.request.get("/api/v1/auth/credits", { headers: { Authorization: `Bearer ${key}` } })).status()).toBe(200);
    await screenshotBoth(page, "keys");

    await row.getByRole("button", { name: "Revoke e2e agent" }).click();
    const confirm = page.getByTestId("revoke-dialog");
    await expect(confirm).toContainText(key.slice(0, 11));
    await confirm.getByRole("button", { name: "Revoke key" }).click();
    await expect(confirm).toBeHidden();
    await expect(row).toContainText("Revoked");
    await expect(row.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
    await expect
      .poll(async () => (await page.request.get("/api/v1/auth/credits", { headers: { Authorization: `Bearer ${key}` } })).status(), { timeout: 15_000 })
      .toBe(401);
    await saveScreenshot(page, "keys-revoked-desktop");
  });
});

test.describe("the main path", () => {
  test("search in English and Chinese, probe invalid then valid, call, and follow the charge", async ({ page }) => {
    test.setTimeout(300_000);
    const user = await freshUser("main");
    const mainAccountId = "accountId" in user ? user.accountId : "";
    let executionId = "";
    await signIn(page, user);

    await test.step("Playground: a key is needed first, and is stored in this browser", async () => {
      await page.goto("/playground");
      await expect(page.getByTestId("key-picker")).toContainText("stored in this browser only");
      await screenshotBoth(page, "playground-no-key");
      await createPlaygroundKey(page);
      await page.reload();
      await expect(page.getByTestId("key-picker-prefix")).toContainText("tg_");
    });

    await test.step("Discover in English, then Inspect a result", async () => {
      const request = page.waitForRequest((r) => r.url().endsWith("/api/v1/search") && r.method() === "POST");
      await page.getByRole("searchbox", { name: "Query" }).fill("compound interest on savings");
      await page.getByRole("button", { name: "Search" }).click();
      expect((await request).postDataJSON()).toMatchObject({ query: "compound interest on savings", lang: "en", view: "full", limit: 10 });
      await expect(page).toHaveURL(/q=compound\+interest/);
      const card = page.locator('[data-tool-id="builtin.finance.compound_interest"]');
      await expect(card).toContainText("Compound interest");
      await expect(card).toContainText("1 credit per call");
      await expect(card).toContainText("Success rate");
      await card.getByRole("button", { name: "Schema & examples" }).click();
      const details = card.getByTestId("inspect-details");
      await expect(details).toContainText("principal");
      await expect(details).toContainText("required");
      await expect(details).toContainText("examples.sample_parameters");
      await screenshotBoth(page, "playground-results");
    });

    await test.step("Discover in Chinese: lang follows the interface language", async () => {
      await page.getByRole("button", { name: "中文" }).click();
      await expect(page.getByRole("heading", { name: "工具探索", level: 1 })).toBeVisible();
      const request = page.waitForRequest((r) => r.url().endsWith("/api/v1/search") && r.method() === "POST");
      await page.getByRole("searchbox", { name: "查询" }).fill("长度单位换算");
      await page.getByRole("button", { name: "搜索" }).click();
      expect((await request).postDataJSON()).toMatchObject({ query: "长度单位换算", lang: "zh" });
      const card = page.locator('[data-tool-id="builtin.convert.length"]');
      await expect(card).toContainText("长度单位换算");
      await expect(card).toContainText("免费");
      // Why it ranked: the request's words found in the tool's fields.
      await expect(card.getByTestId("match")).toContainText("排名依据");
      await screenshotBoth(page, "playground-zh");
      await page.getByRole("button", { name: "EN", exact: true }).click();
      await expect(page.getByRole("heading", { name: "Playground", level: 1 })).toBeVisible();
    });

    await test.step("The routing view: compact cards an agent's router reads", async () => {
      await page.getByLabel("View", { exact: true }).selectOption("routing");
      await expect(page).toHaveURL(/view=routing/);
      const card = page.getByTestId("result-card").first();
      await expect(card).toContainText("Reliability");
      await expect(card).toContainText("as of");
      await screenshotBoth(page, "playground-routing");
      await page.getByLabel("View", { exact: true }).selectOption("full");
    });

    await test.step("Try in console: the form is generated from the schema and prefilled", async () => {
      await page.getByRole("searchbox", { name: "Query" }).fill("compound interest");
      await page.getByRole("button", { name: "Search" }).click();
      const match = page.locator('[data-tool-id="builtin.finance.compound_interest"]').getByTestId("match");
      await expect(match).toContainText("Why it ranked here");
      await expect(match.locator("mark", { hasText: "compound" }).first()).toBeVisible();
      await screenshotBoth(page, "playground-match");
      await page.locator('[data-tool-id="builtin.finance.compound_interest"]').getByRole("link", { name: "Try in console" }).click();
      await expect(page).toHaveURL(/\/console\?tool_id=builtin\.finance\.compound_interest&search_id=/);
      await expect(page.getByTestId("console-tool-name")).toHaveText("Compound interest calculator");
      await expect(page.getByLabel(/^principal/)).toHaveValue("10000");
      await expect(page.getByLabel(/^years/)).toHaveValue("10");
    });

    await test.step("Probe an invalid input: the error appears under its field", async () => {
      await page.getByLabel(/^years/).fill("");
      await page.getByLabel(/^principal/).fill("lots");
      await page.getByRole("button", { name: "Probe" }).click();
      await expect(page.getByTestId("probe-verdict")).toContainText("2 problems");
      await expect(page.getByTestId("field-years").getByTestId("field-error")).toContainText('missing required parameter "years"');
      await expect(page.getByTestId("field-principal").getByTestId("field-error")).toContainText("must be a number");
      await screenshotBoth(page, "console-probe-invalid");
    });

    await test.step("Probe a valid input: the quote is exact", async () => {
      await page.getByLabel(/^years/).fill("2");
      await page.getByLabel(/^principal/).fill("100");
      await page.getByRole("button", { name: "Probe" }).click();
      await expect(page.getByTestId("probe-verdict")).toContainText("The parameters are valid");
      await expect(page.getByTestId("probe-quote")).toHaveText("1 credit");
      await expect(page.getByTestId("field-error")).toHaveCount(0);
    });

    await test.step("Call, after confirming the cost, and see the result and the charge", async () => {
      await page.getByRole("button", { name: "Call", exact: true }).click();
      const confirm = page.getByTestId("confirm-call");
      await expect(confirm).toContainText("will cost 1 credit if it succeeds");
      await screenshotPanel(page, "console-confirm");
      await confirm.getByRole("button", { name: "Call and pay" }).click();
      const result = page.getByTestId("call-result");
      await expect(result.getByTestId("call-status")).toContainText("Succeeded");
      await expect(result.getByTestId("call-status")).toContainText("Charged");
      await expect(result.getByTestId("call-reason")).toHaveText("result.valid");
      await expect(result.getByTestId("call-charge")).toHaveText("1 credit");
      await expect(result.getByTestId("call-remaining")).toHaveText("99");
      await expect(result.getByTestId("call-result-json")).toContainText("final_amount");
      await screenshotBoth(page, "console-call");
      const href = (await result.getByTestId("audit-link").getAttribute("href")) ?? "";
      executionId = new URL(href, "http://x").searchParams.get("id") ?? "";
      expect(executionId).toMatch(/^exe_/);
    });

    await test.step("Usage: the Call is found by its charge outcome, with its details", async () => {
      await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Usage" }).click();
      await expect(page.getByTestId("usage-summary")).toBeVisible();
      await page.getByTestId("charge-outcome-chips").getByRole("button", { name: "Charged", exact: true }).click();
      await expect(page).toHaveURL(/charge_outcome=charged/);
      const rows = page.getByTestId("usage-row");
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toContainText("builtin.finance.compound_interest");
      await expect(rows.first()).toContainText("Charged");
      await expect(page.getByTestId("stat-settled")).toHaveText("1");
      await expect(page.getByTestId("chart-counts").getByTestId("chart-axis-caption")).toContainText("UTC");
      await screenshotBoth(page, "usage");
      await rows.first().getByRole("button", { name: "Details" }).click();
      const panel = page.getByTestId("event-panel");
      await expect(panel.getByTestId("event-details")).toContainText(executionId);
      await expect(panel.getByTestId("event-actual")).toHaveText("1");
      await screenshotPanel(page, "usage-event-panel");
    });

    await test.step("CSV export of the current filter", async () => {
      await page.getByTestId("event-panel").getByRole("button", { name: "Close" }).click();
      const download = page.waitForEvent("download");
      await page.getByTestId("export-csv").click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/^usage-.*\.csv$/);
      const csv = await fs.readFile((await file.path()) ?? "", "utf8");
      const lines = csv.trim().split(/\r?\n/);
      expect(lines[0]).toMatch(/^id,created_at,event_type,/);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(executionId);
      expect(lines[1]).toContain(",charged,");
    });

    await test.step("Follow the event to its ledger row, and back", async () => {
      await page.getByTestId("usage-row").first().getByRole("button", { name: "Details" }).click();
      await page.getByTestId("event-panel").getByTestId("to-ledger").click();
      await expect(page).toHaveURL(/\/ledger\?entry=/);
      const entry = page.getByTestId("entry-panel");
      await expect(entry.getByTestId("entry-amount")).toHaveText("\u22121");
      await expect(entry.getByTestId("entry-details")).toContainText(executionId);
      await expect(page.getByTestId("ledger-row").filter({ hasText: "\u22121" })).toHaveCount(1);
      await screenshotPanel(page, "ledger-entry-panel");
      await entry.getByTestId("entry-to-event").click();
      await expect(page).toHaveURL(/\/usage\?event=/);
      await expect(page.getByTestId("event-panel").getByTestId("event-details")).toContainText(executionId);
      await page.getByTestId("event-panel").getByRole("button", { name: "Close" }).click();
      await page.goto("/ledger");
      await expect(page.getByTestId("ledger-consumed")).toHaveText("1");
      await expect(page.getByTestId("ledger-granted")).toHaveText("100");
      await expect(page.getByTestId("ledger-net")).toHaveText("+99");
      await screenshotBoth(page, "ledger");
    });

    await test.step("Executions: the id resolves to one reconciled timeline", async () => {
      await page.goto("/executions");
      await screenshotBoth(page, "executions-start");
      await page.getByLabel(/^Id/).fill(executionId);
      await page.getByRole("button", { name: "Look up" }).click();
      await expect(page).toHaveURL(new RegExp(`id=${executionId}`));
      await expect(page.getByTestId("verdict")).toHaveText("Reconciled");
      const steps = page.getByTestId("timeline-step");
      for (const step of ["search", "call", "usage_event", "ledger_entry", "balance_change"]) {
        await expect(steps.and(page.locator(`[data-step="${step}"]`)).first()).toBeVisible();
      }
      await expect(page.getByTestId("balance-change").first()).toContainText("100 \u22121 = 99");
      await screenshotBoth(page, "executions");
    });

    await test.step("Overview: spend, outcomes, largest charges and a reconciled window", async () => {
      await page.goto("/");
      await expect(page.getByTestId("spent-1")).toHaveText("1");
      await expect(page.getByTestId("spent-30")).toHaveText("1");
      await expect(page.getByTestId("largest-charges")).toContainText("builtin.finance.compound_interest");
      await expect(page.getByTestId("reconciliation")).toContainText("Reconciled");
      await screenshotBoth(page, "overview-activity");
    });

    await test.step("Another account cannot see this execution; support can", async () => {
      const stranger = await freshUser("stranger");
      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page).toHaveURL(/\/login$/);
      await signIn(page, stranger);
      await page.goto(`/executions?id=${executionId}`);
      await expect(page.getByRole("alert").filter({ hasText: "Nothing found" })).toBeVisible();

      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page).toHaveURL(/\/login$/);
      await signIn(page, SUPPORT_USER);
      await page.goto(`/executions?id=${executionId}`);
      await expect(page.getByTestId("verdict")).toHaveText("Reconciled");
      await expect(page.getByTestId("lookup-result")).toContainText(mainAccountId);
      await saveScreenshot(page, "executions-support-desktop");
    });
  });

  test("a large result is truncated with a download link; summary mode too", async ({ page }) => {
    await signIn(page, await freshUser("truncate"));
    await page.goto("/console?tool_id=builtin.text.lorem_ipsum");
    await createPlaygroundKey(page);
    await expect(page.getByTestId("console-tool-name")).toBeVisible();
    await page.getByLabel(/^unit/).selectOption("paragraphs");
    await page.getByLabel(/^count/).fill("40");
    await page.getByLabel("Truncate above").selectOption("1024");
    // A free tool: no confirm step.
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const result = page.getByTestId("call-result");
    await expect(result.getByTestId("result-file")).toContainText("The result was truncated");
    const link = result.getByTestId("download-full");
    const href = await link.getAttribute("href");
    expect(href).toBeTruthy();
    const download = await page.request.get(href ?? "");
    expect(download.status()).toBe(200);
    expect((await download.text()).length).toBeGreaterThan(1024);
    await screenshotBoth(page, "console-truncated");

    await page.getByLabel("Result").selectOption("summary");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await expect(result.getByTestId("result-file")).toContainText("Summary of the result");
    await expect(result.getByTestId("call-result-json")).toContainText("summary");
  });
});

test.describe("states, languages and time zones", () => {
  test("Usage shows an error with a working retry, and an empty filter says what to do", async ({ page }) => {
    await signIn(page, await freshUser("states"));
    let failing = true;
    await page.route("**/api/v1/auth/usage/history/v2?*", (route) =>
      failing
        ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ status: "failure", status_code: 503, message: "Audit store unavailable" }) })
        : route.fallback(),
    );
    await page.goto("/usage");
    const alert = page.getByRole("alert").filter({ hasText: "Could not load the usage history" });
    await expect(alert).toBeVisible({ timeout: 20_000 });
    await expect(alert).toContainText("Audit store unavailable");
    await saveScreenshot(page, "usage-error-desktop");
    failing = false;
    await alert.getByRole("button", { name: "Try again" }).click();
    // A new account has no events yet: the empty state says where they come from.
    await expect(page.getByTestId("usage-empty")).toContainText("No usage in this period");
    await page.getByRole("alert").filter({ hasText: "Could not load the summary" }).getByRole("button", { name: "Try again" }).click();
    await expect(page.getByTestId("usage-summary")).toBeVisible();

    await page.goto("/usage?charge_outcome=failed_charged_review&reason_code=provider.error");
    await expect(page.getByTestId("usage-empty")).toContainText("No event matches these filters");
    await saveScreenshot(page, "usage-empty-desktop");
    await page.getByTestId("usage-empty").getByRole("button", { name: "Clear filters" }).click();
    await expect(page).not.toHaveURL(/charge_outcome/);
    await expect(page).not.toHaveURL(/reason_code/);
  });

  test("Usage tells MCP traffic from REST (the Channel filter)", async ({ page }) => {
    test.skip(!canSeed(), "needs the server's admin channel to seed an account with a key");
    const user = (await seedUser({ label: "channel", credits: 10 })) as SeededUser;
    const { api_key: key } = (await adminCommand(["keys", "create", "--account", user.accountId, "--json"])) as { api_key: string };
    const auth = { Authorization: `Bearer ${key}` };
    const call = { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } };
    const viaMcp = await page.request.post("/api/v1/mcp", {
      headers: { ...auth, Accept: "application/json, text/event-stream", "Content-Type": "application/json" },
      data: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "call", arguments: call } },
    });
    expect((await viaMcp.json()).result.structuredContent).toMatchObject({ success: true, cost: 1 });
    expect((await page.request.post("/api/v1/tools/execute", { headers: auth, data: call })).status()).toBe(200);

    await signIn(page, user);
    await page.goto("/usage?channel=mcp");
    await expect(page.getByTestId("usage-row")).toHaveCount(1);
    await page.getByRole("button", { name: /More filters/ }).click();
    await expect(page.getByLabel("Channel")).toHaveValue("mcp");
    await page.getByTestId("usage-row").first().getByRole("button", { name: "Details" }).click();
    await expect(page.getByText("channel", { exact: true })).toBeVisible();
    await screenshotPanel(page, "usage-channel-mcp");
    await page.keyboard.press("Escape");
    if (!(await page.getByLabel("Channel").isVisible())) await page.getByRole("button", { name: /More filters/ }).click();
    await page.getByLabel("Channel").selectOption("api");
    await expect(page).toHaveURL(/channel=api/);
    await expect(page.getByTestId("usage-row")).toHaveCount(1);
    await page.getByLabel("Channel").selectOption("");
    await expect(page.getByTestId("usage-row")).toHaveCount(2);
  });

  test("API keys are usable from the keyboard alone", async ({ page }) => {
    await signIn(page, await freshUser("keyboard"));
    await page.goto("/keys");
    await page.getByLabel("Name").focus();
    await page.keyboard.type("typed key");
    await page.keyboard.press("Enter");
    const dialog = page.getByTestId("new-key-dialog");
    await expect(dialog).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("key-row").filter({ hasText: "typed key" })).toBeVisible();
  });

  test("every page in Chinese", async ({ page }) => {
    await signIn(page, await freshUser("zh"));
    await page.getByRole("button", { name: "中文" }).click();
    await expect(page.getByRole("heading", { name: "概览", level: 1 })).toBeVisible();
    const pages: [string, string, string][] = [
      ["/", "概览", "overview-zh-activity"],
      ["/console?tool_id=builtin.convert.length", "控制台", "console-zh"],
      ["/keys", "API 密钥", "keys-zh"],
      ["/usage", "用量", "usage-zh"],
      ["/ledger", "账本", "ledger-zh"],
      ["/executions", "执行记录", "executions-zh"],
    ];
    for (const [path, heading, shot] of pages) {
      await page.goto(path);
      await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
      if (path.startsWith("/console")) {
        await page.getByRole("button", { name: "创建工具探索密钥" }).click();
        await expect(page.getByTestId("console-tool-name")).toHaveText("长度单位换算");
        await page.getByRole("button", { name: "调用", exact: true }).click();
        await expect(page.getByTestId("call-status")).toContainText("成功");
      }
      if (path === "/") await expect(page.getByTestId("reconciliation")).toContainText("对账一致");
      if (path === "/keys") await expect(page.getByTestId("key-row").first()).toBeVisible();
      if (path === "/usage") await expect(page.getByTestId("usage-summary")).toContainText("事件数");
      if (path === "/ledger") await expect(page.getByTestId("ledger-row").first()).toBeVisible();
      await screenshotBoth(page, shot);
    }
  });
});

test.describe("in the user's own time zone", () => {
  test.use({ timezoneId: "Asia/Shanghai" });

  test("Usage states its time zone, sends it as tz, and switches to UTC", async ({ page }) => {
    await signIn(page, await freshUser("tz"));
    // The visible one: while a streamed page hydrates, its server-rendered copy (in UTC, the
    // server's zone) can still sit in a hidden segment of the DOM.
    const tzCurrent = page.getByTestId("tz-current").filter({ visible: true });
    const first = page.waitForRequest((r) => r.url().includes("/api/v1/auth/usage/history/v2?") && r.url().includes("summary=true"));
    await page.goto("/usage");
    expect(new URL((await first).url()).searchParams.get("tz")).toBe("Asia/Shanghai");
    await expect(tzCurrent).toHaveText("Asia/Shanghai");
    await expect(page.getByTestId("chart-counts").getByTestId("chart-axis-caption")).toContainText("Asia/Shanghai");

    const utc = page.waitForRequest((r) => r.url().includes("/api/v1/auth/usage/history/v2?") && r.url().includes("tz=UTC"));
    await page.getByTestId("tz-switch").getByRole("button", { name: "UTC" }).click();
    await utc;
    await expect(page).toHaveURL(/tz=UTC/);
    await expect(tzCurrent).toHaveText("UTC");
    await expect(page.getByTestId("chart-counts").getByTestId("chart-axis-caption")).toContainText("UTC");
    await saveScreenshot(page, "usage-utc-switch-desktop");

    // The choice is remembered in this browser: another page opens in UTC too.
    await page.goto("/ledger");
    await expect(tzCurrent).toHaveText("UTC");
    await page.getByTestId("tz-switch").getByRole("button", { name: /Mine/ }).click();
    await expect(tzCurrent).toHaveText("Asia/Shanghai");
  });
});

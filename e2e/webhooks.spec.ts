import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";
import { adminCommand } from "./admin";
import { DESKTOP_VIEWPORT, PHONE_VIEWPORT, SCREENSHOT_DIR, expect, signIn, test, screenshotBoth } from "./fixtures";
import { startServer, type RunningServer } from "./server";
import { startWebhookReceiver, type WebhookReceiver } from "../lib/testing/webhook-receiver";

/**
 * Budgets & alerts, its webhook half, in a real browser: the owner adds an endpoint and sees its
 * signing secret once, sends a test event that the receiver refuses (503 in the delivery log), a
 * Call crosses the low-balance threshold (banner, notification, balance.low delivery), and Resend
 * delivers once the receiver is back; a member reads all of it without the owner's actions.
 * A server of this spec's own lets webhooks reach the receiver on 127.0.0.1
 * (WEBHOOK_ALLOW_PRIVATE_NETWORK=true).
 */

const COMPOUND = { tool_id: "builtin.finance.compound_interest", parameters: { principal: 100, annual_rate_percent: 5, years: 2 } };

let server: RunningServer;
let receiver: WebhookReceiver;
let healthy = false;
const users = {} as { accountId: string; apiKey: string; owner: { email: string; password: string }; member: { email: string; password: string } };

test.beforeAll(async () => {
  test.setTimeout(240_000);
  receiver = await startWebhookReceiver();
  receiver.respond = () => (healthy ? 200 : 503);
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-webhooks-")), "server.log");
  server = await startServer(process.cwd(), { logFile, env: { WEBHOOK_ALLOW_PRIVATE_NETWORK: "true", SEED_DEMO: "false" } });
  const admin = (argv: string[]) => adminCommand(argv, server.dataDir) as Promise<Record<string, string>>;
  const suffix = crypto.randomBytes(4).toString("hex");
  users.accountId = (await admin(["accounts", "create", "--name", `e2e webhooks ${suffix}`, "--credits", "10"])).account_id;
  users.owner = { email: `owner-${suffix}@example.test`, password: `pw-${crypto.randomBytes(9).toString("hex")}` };
  users.member = { email: `member-${suffix}@example.test`, password: `pw-${crypto.randomBytes(9).toString("hex")}` };
  await admin(["users", "create", "--account", users.accountId, "--email", users.owner.email, "--password", users.owner.password, "--role", "owner"]);
  await admin(["users", "create", "--account", users.accountId, "--email", users.member.email, "--password", users.member.password, "--role", "member"]);
  users.apiKey = (await admin(["keys", "create", "--account", users.accountId, "--name", "agent"])).api_key;
  await admin(["alerts", "set", "--account", users.accountId, "--low-balance", "9.5"]);
});

test.afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

test.describe("Budgets & alerts: webhooks", () => {
  // The member reads what the owner's test made.
  test.describe.configure({ mode: "serial" });

  test("the owner adds an endpoint (secret shown once), sees a refused test delivery with its status code, a low-balance crossing raises the banner, and Resend delivers", async ({ browser }) => {
    test.setTimeout(180_000);
    const context = await browser.newContext({ baseURL: server.baseUrl });
    const page = await context.newPage();
    await signIn(page, users.owner);
    await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Budgets & alerts" }).click();
    await expect(page.getByRole("heading", { name: "Budgets & alerts", level: 1 })).toBeVisible();
    await expect(page.getByLabel("Low balance")).toHaveValue("9.5");
    await expect(page.getByTestId("webhooks-empty")).toBeVisible();

    await page.getByLabel("Endpoint URL").fill(`${receiver.url}/hooks`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByTestId("new-webhook-dialog");
    await expect(dialog).toBeVisible();
    const secret = (await dialog.getByTestId("new-webhook-secret").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await expect(dialog).toContainText("This is the only time the secret is shown");
    await page.setViewportSize(DESKTOP_VIEWPORT);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "webhooks-secret-dialog-desktop.png") });
    await page.setViewportSize(PHONE_VIEWPORT);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "webhooks-secret-dialog-phone.png") });
    await page.setViewportSize(DESKTOP_VIEWPORT);
    await dialog.getByRole("button", { name: "I have saved it" }).click();
    await expect(dialog).toBeHidden();
    // Never shown again, not even after a reload.
    await page.reload();
    const endpoint = page.getByTestId("webhook-endpoint");
    await expect(endpoint.getByTestId("webhook-url")).toHaveText(`${receiver.url}/hooks`);
    expect(await page.content()).not.toContain(secret);

    // A test event; the receiver is down: the log shows its 503.
    await endpoint.getByRole("button", { name: "Send test event" }).click();
    const testDelivery = endpoint.getByTestId("delivery-row").filter({ hasText: "webhook.test" });
    await expect(testDelivery.getByTestId("delivery-status-code")).toHaveText("503");
    await expect(testDelivery).toContainText("Pending");

    // A Call takes the balance from 10 to 9, below 9.5: a notification, the banner elsewhere, a balance.low delivery.
    const call = await page.request.post("/api/v1/tools/execute", { headers: { Authorization: `Bearer ${users.apiKey}` }, data: COMPOUND });
    expect(call.status()).toBe(200);
    await page.goto("/");
    const banner = page.getByTestId("unread-banner");
    await expect(banner).toContainText("1 unread notification");
    await screenshotBoth(page, "webhooks-banner");
    await banner.getByRole("link", { name: "View notifications" }).click();
    await expect(page).toHaveURL(/\/budgets#notifications$/);
    await expect(page.getByTestId("notification-row").filter({ hasText: "Low balance" })).toContainText("Balance fell to 9 credits, below the 9.5-credit threshold.");
    await expect(page.getByTestId("unread-banner")).toHaveCount(0);

    await page.getByTestId("webhook-endpoint").getByRole("button", { name: "Delivery log" }).click();
    const lowDelivery = page.getByTestId("delivery-row").filter({ hasText: "balance.low" });
    await expect(lowDelivery.getByTestId("delivery-status-code")).toHaveText("503");

    // The receiver is back: Resend delivers the test event (200), under the same webhook-id.
    healthy = true;
    const resent = page.getByTestId("delivery-row").filter({ hasText: "webhook.test" });
    const deliveryId = (await resent.getByTestId("delivery-id").textContent()) ?? "";
    await resent.getByRole("button", { name: "Resend" }).click();
    await expect(resent).toContainText("Delivered");
    await expect(resent.getByTestId("delivery-status-code")).toHaveText("200");
    await resent.getByText("Attempts", { exact: true }).click();
    await expect(resent.getByTestId("attempt-log")).toContainText("503");
    await expect(resent.getByTestId("attempt-log")).toContainText("200");
    const got = receiver.received.filter((r) => r.headers["webhook-id"] === deliveryId);
    expect(got.length).toBeGreaterThanOrEqual(2);
    expect(new Webhook(secret).verify(got.at(-1)!.body, got.at(-1)!.headers)).toMatchObject({ type: "webhook.test" });
    await page.getByRole("button", { name: "Mark all read" }).click();
    await expect(page.getByRole("button", { name: "Mark all read" })).toHaveCount(0);
    await screenshotBoth(page, "webhooks-page-en");

    // The same page in Chinese.
    await context.addCookies([{ name: "tollgate-locale", value: "zh", url: server.baseUrl }]);
    await page.reload();
    await expect(page.getByRole("heading", { name: "预算与提醒", level: 1 })).toBeVisible();
    await page.getByTestId("webhook-endpoint").getByRole("button", { name: "投递日志" }).click();
    await expect(page.getByTestId("delivery-row").first()).toBeVisible();
    await screenshotBoth(page, "webhooks-page-zh");
    await context.close();
  });

  test("a member reads alerts, webhooks and their delivery log, without the owner's actions", async ({ browser }) => {
    const context = await browser.newContext({ baseURL: server.baseUrl });
    const page = await context.newPage();
    await signIn(page, users.member);
    await page.goto("/budgets");
    await expect(page.getByText("Only the account's owner can change alerts and webhooks")).toBeVisible();
    await expect(page.getByLabel("Low balance")).toBeDisabled();
    await expect(page.getByRole("button", { name: "Add endpoint" })).toHaveCount(0);
    const endpoint = page.getByTestId("webhook-endpoint");
    await endpoint.getByRole("button", { name: "Delivery log" }).click();
    await expect(endpoint.getByTestId("delivery-row").first()).toBeVisible();
    await expect(endpoint.getByRole("button", { name: "Resend" })).toHaveCount(0);
    await expect(endpoint.getByRole("button", { name: "Send test event" })).toHaveCount(0);
    await context.close();
  });
});

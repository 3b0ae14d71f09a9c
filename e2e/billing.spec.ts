import fs from "node:fs";
import path from "node:path";
import { startServer, type RunningServer } from "./server";
import { expectNoSeriousViolations } from "./axe";
import { DEMO_USER, expect, PHONE_VIEWPORT, DESKTOP_VIEWPORT, signIn, test as base, screenshotBoth, saveScreenshot } from "./fixtures";
import { startFakeStripe, TEST_STRIPE_KEY, TEST_WEBHOOK_SECRET, type FakeStripe } from "../lib/testing/fake-stripe";
import { SUPPORT_USER } from "../lib/seed/seed-demo";
import { dashboardToken } from "./seeding";

/**
 * Buying credits in a real browser: the owner picks a pack on the Billing page, pays on the
 * (local) Stripe Checkout page, comes back to a payment that waits for Stripe's signed webhook
 * and turns into credits, and finds the payment in the ledger; a canceled checkout charges
 * nothing. The server runs with payments on, against a local server playing Stripe; the suite's
 * own server (payments off) offers no purchase.
 */
base.describe.configure({ mode: "serial", timeout: 180_000 });

interface Setting {
  server: RunningServer;
  stripe: FakeStripe;
}

const test = base.extend<object, { setting: Setting }>({
  setting: [
    async ({}, use) => {
      const stripe = await startFakeStripe();
      fs.mkdirSync("test-results", { recursive: true });
      const server = await startServer(process.cwd(), {
        logFile: path.join("test-results", "billing-server.log"),
        env: {
          STRIPE_SECRET_KEY: TEST_STRIPE_KEY,
          STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
          STRIPE_API_URL: stripe.apiUrl,
          CREDIT_PRICE_MINOR: "1",
          BILLING_CURRENCY: "usd",
          CREDIT_PURCHASE_MIN: "50",
          CREDIT_PURCHASE_MAX: "100000",
          CREDIT_PACKS: "100,500,2000",
        },
      });
      stripe.webhook = { url: `${server.baseUrl}/api/v1/billing/stripe/webhook`, secret: TEST_WEBHOOK_SECRET };
      await use({ server, stripe });
      await server.stop();
      await stripe.close();
    },
    { scope: "worker", timeout: 240_000 },
  ],
  baseURL: async ({ setting }, use) => {
    await use(setting.server.baseUrl);
  },
});

/** The balance shown on the Overview, as its text. */
async function balance(page: import("@playwright/test").Page): Promise<string> {
  await page.goto("/");
  const total = page.getByTestId("balance-total-available");
  await expect(total).toBeVisible({ timeout: 30_000 });
  return (await total.textContent())!.trim();
}

test("an owner buys a pack through Checkout, waits for Stripe's confirmation, and finds the credits and the payment in the ledger", async ({ page }) => {
  await signIn(page, DEMO_USER);
  expect(await balance(page)).toBe("1,000");

  await page.goto("/billing");
  const buy = page.getByTestId("buy-credits");
  await expect(buy).toContainText("$0.01 per credit");
  await expect(page.getByTestId("payments-empty")).toBeVisible();
  await expectNoSeriousViolations(page, "Billing");
  await screenshotBoth(page, "billing");

  // An amount the server would refuse is refused here first.
  await page.getByTestId("buy-amount").fill("10");
  await page.getByTestId("buy-button").click();
  await expect(buy.getByRole("alert")).toHaveText("Enter a number of credits from 50 to 100,000.");

  await buy.getByTestId("pack").filter({ hasText: "500 credits" }).click();
  await expect(page.getByTestId("buy-button")).toHaveText("Buy for $5.00");
  await page.getByTestId("buy-button").click();
  // Stripe's (local) hosted Checkout page.
  await expect(page).toHaveURL(/\/checkout\/cs_/);
  await saveScreenshot(page, "billing-checkout");
  await page.getByRole("button", { name: "Pay" }).click();

  // Back on Billing: the payment, pending until the webhook granted it, then the credits.
  await expect(page).toHaveURL(/\/billing\?payment=pay_/);
  const returned = page.getByTestId("payment-returned");
  await expect(returned.locator("[data-status]")).toHaveAttribute("data-status", "succeeded", { timeout: 20_000 });
  await expect(returned).toContainText("500 credits added");
  const row = page.getByTestId("payment-row").first();
  await expect(row.getByTestId("payment-status")).toHaveAttribute("data-status", "succeeded");
  await expect(row).toContainText("$5.00");
  await expect(row.getByTestId("payment-receipt")).toHaveAttribute("href", /^http/);
  await screenshotBoth(page, "billing-paid");

  // The reconciliation finds the payment in Stripe's balance transactions and in the ledger.
  const paymentId = new URL(page.url()).searchParams.get("payment")!;
  const reconciliation = page.getByTestId("reconciliation");
  const line = reconciliation.getByTestId("reconciliation-row").filter({ hasText: paymentId });
  await expect(line.getByTestId("reconciliation-status")).toHaveAttribute("data-status", "matched", { timeout: 20_000 });
  await expect(line.getByTestId("reconciliation-ledger")).toHaveCount(1);
  await expect(reconciliation.getByTestId("reconciliation-ok")).toBeVisible();
  await expect(reconciliation.getByTestId("reconciliation-total")).toContainText("$5.00");
  const downloading = page.waitForEvent("download");
  await reconciliation.getByTestId("reconciliation-csv").click();
  const csv = fs.readFileSync((await (await downloading).path())!, "utf8");
  expect(csv).toContain(paymentId);
  expect(csv).toContain("matched");
  await reconciliation.scrollIntoViewIfNeeded();
  await screenshotBoth(page, "billing-reconciliation");

  // The grant in the ledger: its row opens from the payment.
  const ledgerHref = await row.getByTestId("payment-ledger").getAttribute("href");
  expect(ledgerHref).toMatch(/^\/ledger\?entry=led_/);
  await row.getByTestId("payment-ledger").click();
  const panel = page.getByTestId("entry-details");
  await expect(panel).toBeVisible({ timeout: 20_000 });
  await expect(panel).toContainText("grant_payment_recharge");
  await expect(panel).toContainText("500");
  expect(await balance(page)).toBe("1,500");
});

test("a canceled checkout charges nothing and says so, in Chinese too", async ({ page, setting }) => {
  await signIn(page, DEMO_USER);
  await page.goto("/billing");
  await page.getByTestId("buy-amount").fill("120");
  await expect(page.getByTestId("buy-button")).toHaveText("Buy for $1.20");
  await page.getByTestId("buy-button").click();
  await expect(page).toHaveURL(/\/checkout\/cs_/);
  await page.getByRole("link", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/canceled=1/);
  await expect(page.getByTestId("payment-returned")).toContainText("Payment canceled");
  expect([...setting.stripe.charges.values()]).toHaveLength(1);

  await page.getByRole("button", { name: "中文" }).click();
  await expect(page.getByTestId("payment-returned")).toContainText("付款已取消");
  await expect(page.getByTestId("payment-row").first().getByTestId("payment-status")).toBeVisible();
  await expectNoSeriousViolations(page, "Billing (zh)");
  await page.setViewportSize(PHONE_VIEWPORT);
  await saveScreenshot(page, "billing-zh-phone");
  await page.setViewportSize(DESKTOP_VIEWPORT);
  await saveScreenshot(page, "billing-zh-desktop");
});

test("an owner saves a card on the (local) Checkout page, turns auto top-up on, and the top-up arrives; a declined card says so", async ({ page, setting }) => {
  await signIn(page, DEMO_USER);
  await page.goto("/billing");
  const section = page.getByTestId("auto-topup");
  await expect(section.getByTestId("auto-topup-state")).toHaveAttribute("data-state", "off");
  await expect(section.getByTestId("auto-topup-card")).toHaveText("No card saved");

  // Stripe's (local) Checkout page in setup mode: the test card that pays.
  await section.getByTestId("auto-topup-save-card").click();
  await expect(page).toHaveURL(/\/checkout\/cs_/);
  await expect(page.getByRole("heading", { name: "Save a card" })).toBeVisible();
  await page.getByRole("button", { name: "Save card" }).click();
  await expect(page).toHaveURL(/\/billing\?card=saved/);
  await expect(page.getByTestId("card-returned")).toContainText("Card saved", { timeout: 20_000 });
  await expect(section.getByTestId("auto-topup-card")).toContainText("VISA ···· 4242");

  // The balance (1,500) is below the threshold: saving starts a top-up, which Stripe's webhook grants.
  await section.getByTestId("auto-topup-threshold").fill("2000");
  await section.getByTestId("auto-topup-amount").fill("500");
  await section.getByTestId("auto-topup-limit").fill("1000");
  await section.getByTestId("auto-topup-enabled").check();
  await section.getByTestId("auto-topup-save").click();
  await expect(section.getByTestId("auto-topup-saved")).toBeVisible();
  await expect(section.getByTestId("auto-topup-state")).toHaveAttribute("data-state", "active");
  await expect(section.getByTestId("auto-topup-rule")).toHaveText("When the balance falls below 2,000 credits, buy 500 credits ($5.00) with the saved card.");
  const row = page.getByTestId("payment-row").filter({ has: page.getByTestId("payment-kind") }).first();
  await expect(row.getByTestId("payment-status")).toHaveAttribute("data-status", "succeeded", { timeout: 30_000 });
  await expect(row).toContainText("Auto top-up");
  await expect(row).toContainText("$5.00");
  await page.reload();
  await expect(section.getByTestId("auto-topup-bought")).toHaveText("500 credits");
  await expectNoSeriousViolations(page, "Billing with auto top-up");
  await section.scrollIntoViewIfNeeded();
  await screenshotBoth(page, "billing-auto-topup");

  // The card now declines: raising the threshold starts a top-up that fails, and the page says why.
  for (const pm of setting.stripe.paymentMethods.values()) pm._behaviour = "declines";
  await section.getByTestId("auto-topup-threshold").fill("5000");
  await section.getByTestId("auto-topup-save").click();
  await expect(section.getByTestId("auto-topup-failure")).toContainText("The last charge failed: the card was declined. 1 of 3 failures in a row", { timeout: 20_000 });
  await expect(page.getByTestId("payment-row").first().getByTestId("payment-status")).toHaveAttribute("data-status", "failed", { timeout: 20_000 });
  await section.scrollIntoViewIfNeeded();
  await screenshotBoth(page, "billing-auto-topup-declined");
  await page.getByRole("button", { name: "中文" }).click();
  await expect(section.getByTestId("auto-topup-failure")).toContainText("银行卡被拒绝");
  await page.setViewportSize(PHONE_VIEWPORT);
  await section.scrollIntoViewIfNeeded();
  await saveScreenshot(page, "billing-auto-topup-zh-phone");
  await page.setViewportSize(DESKTOP_VIEWPORT);
  await page.getByRole("button", { name: "EN", exact: true }).click();
  expect(await balance(page)).toBe("2,000");
});

test("support reads a customer's auto top-up and its failure, without the owner's controls", async ({ page }) => {
  await signIn(page, DEMO_USER);
  const token = await dashboardToken(page);
  const account = await page.request.get("/api/v1/auth/account", { headers: { authorization: `Bearer ${token}` } });
  const accountId = ((await account.json()) as { data: { account_id: string } }).data.account_id;
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await signIn(page, SUPPORT_USER);
  await page.goto(`/billing?account_id=${accountId}`);
  const section = page.getByTestId("auto-topup");
  await expect(section.getByTestId("auto-topup-card")).toContainText("VISA ···· 4242");
  await expect(section.getByTestId("auto-topup-failure")).toContainText("the card was declined");
  await expect(section.getByTestId("auto-topup-save")).toHaveCount(0);
  await expect(section.getByTestId("auto-topup-save-card")).toHaveCount(0);
  await expect(page.getByTestId("buy-credits")).toHaveCount(0);
  await section.scrollIntoViewIfNeeded();
  await saveScreenshot(page, "billing-auto-topup-support");
});

base("without Stripe configured the Billing page offers no purchase and says how credits arrive", async ({ page }) => {
  await signIn(page, DEMO_USER);
  await page.goto("/billing");
  await expect(page.getByTestId("billing-off")).toContainText("Credits are not sold on this server");
  await expect(page.getByTestId("buy-button")).toHaveCount(0);
  await expect(page.getByTestId("payments-empty")).toBeVisible();
  await expect(page.getByTestId("auto-topup")).toHaveCount(0);
});

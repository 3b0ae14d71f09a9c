// Support refunds in a real browser against the production server: a failed but charged Call is
// refunded from the Executions page (in part, then the rest; and in Chinese), its owner sees the
// refund on the Executions and Ledger pages and is never offered the action. The Call path never
// charges a failure, so the review cases are written straight into the database
// (lib/testing/review-case.ts): this spec runs its own server on its own PostgreSQL database,
// which the shared server's embedded database does not allow.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import type { Page } from "@playwright/test";
import { startServer, type RunningServer } from "./server";
import { expectNoSeriousViolations } from "./axe";
import { expect, signIn, test as base, screenshotBoth, screenshotPanel } from "./fixtures";
import { openDatabase } from "../lib/db/open";
import type { Database } from "../lib/db/types";
import { seedAccount } from "../lib/testing/fixtures";
import { writeReviewCase } from "../lib/testing/review-case";
import { verifyLedger } from "../lib/audit/verify";

const url = process.env.TEST_DATABASE_URL;
// CI has PostgreSQL (.ci/run starts it): there, a missing URL is a failure, not a skip.
if (process.env.CI && !url) throw new Error("The refunds e2e test needs TEST_DATABASE_URL");
base.skip(!url, "needs TEST_DATABASE_URL (a PostgreSQL server to create its own database on)");
base.describe.configure({ mode: "serial", timeout: 120_000 });

/** seedAccount's users sign in with this password. */
const PASSWORD = "correct horse battery";

type Seeded = Awaited<ReturnType<typeof seedAccount>>;
interface Setting {
  server: RunningServer;
  database: Database;
  owner: Seeded;
  support: Seeded;
}

/** The spec's own server and database (one per worker), an account to refund and a support user. */
const test = base.extend<{ setting: Setting }, { workerSetting: Setting }>({
  workerSetting: [
    async ({}, use) => {
      const dbName = `tollgate_refunds_${crypto.randomBytes(5).toString("hex")}`;
      await admin(`create database "${dbName}"`);
      // Beside the shared server's log, for a failed run.
      fs.mkdirSync("test-results", { recursive: true });
      const server = await startServer(process.cwd(), { env: { DATABASE_URL: databaseUrl(dbName) }, logFile: path.join("test-results", "refunds-server.log") });
      const database = await openDatabase({ kind: "postgres", url: databaseUrl(dbName), poolSize: 2 });
      const owner = await seedAccount(database.db, { credits: "10", name: "Refund Owner" });
      const support = await seedAccount(database.db, { role: "support", name: "Support desk" });
      await use({ server, database, owner, support });
      await server.stop();
      await database.close();
      await admin(`drop database if exists "${dbName}" with (force)`);
    },
    { scope: "worker", timeout: 240_000 },
  ],
  setting: async ({ workerSetting }, use) => {
    await use(workerSetting);
  },
  baseURL: async ({ workerSetting }, use) => {
    await use(workerSetting.server.baseUrl);
  },
});

function databaseUrl(name?: string): string {
  const u = new URL(url!);
  if (name) u.pathname = `/${name}`;
  return u.toString();
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const signInAs = (page: Page, user: { email: string }) => signIn(page, { email: user.email, password: PASSWORD });

test("support refunds a failed but charged Call from the Executions page, in part and then the rest", async ({ page, setting: { database, owner, support } }) => {
  const review = await writeReviewCase(database.db, owner.accountId, "2.5");
  await signInAs(page, support);
  await page.goto(`/executions?id=${review.executionId}`);
  await expect(page.getByTestId("verdict")).toHaveText("Needs review");
  await expect(page.getByTestId("lookup-result")).toContainText(owner.accountId);
  await screenshotBoth(page, "refund-review-case");

  await page.getByTestId("refund-open").click();
  const dialog = page.getByTestId("refund-dialog");
  await expect(dialog).toContainText("up to 2.5 credits can still go back to account");
  await expect(dialog.getByLabel(/Credits to refund/)).toHaveValue("2.5");
  // The reason is required.
  await dialog.getByRole("button", { name: "Review refund" }).click();
  await expect(dialog).toContainText("Give a reason");
  await dialog.getByLabel(/Credits to refund/).fill("3");
  await dialog.getByLabel(/Reason/).fill("Provider outage: the call failed but was charged");
  await dialog.getByRole("button", { name: "Review refund" }).click();
  await expect(dialog).toContainText("Enter an amount above 0 and at most 2.5 credits");
  await screenshotPanel(page, "refund-dialog-invalid");
  // The dialog with its errors shown is accessible too (the page tour in a11y.spec.ts does not open it).
  await expectNoSeriousViolations(page, "refund dialog with errors");

  await dialog.getByLabel(/Credits to refund/).fill("1");
  await dialog.getByRole("button", { name: "Review refund" }).click();
  await expect(dialog.getByTestId("refund-confirm")).toContainText(`Give 1 credit back to account ${owner.accountId}?`);
  await screenshotPanel(page, "refund-confirm");
  await dialog.getByRole("button", { name: "Confirm refund" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("refund-done")).toContainText("Refunded 1 credit");
  await expect(page.getByTestId("refunded-credits")).toHaveText("1");
  // Part refunded: still a case for review, with the refund on the timeline.
  await expect(page.getByTestId("verdict")).toHaveText("Needs review");
  await expect(page.locator('[data-testid="timeline-step"][data-step="refund"]')).toContainText("Refund +1 credit by support: Provider outage: the call failed but was charged");

  await page.getByTestId("refund-open").click();
  await expect(dialog.getByLabel(/Credits to refund/)).toHaveValue("1.5");
  await dialog.getByLabel(/Reason/).fill("The rest of the charge");
  await dialog.getByRole("button", { name: "Review refund" }).click();
  await dialog.getByRole("button", { name: "Confirm refund" }).click();
  await expect(page.getByTestId("verdict")).toHaveText("Refunded");
  await expect(page.getByTestId("refund-open")).toHaveCount(0);
  await expect(page.getByTestId("refunded-credits")).toHaveText("2.5");
  await expect(page.locator('[data-testid="timeline-step"][data-step="refund"]')).toHaveCount(2);
  await expect(page.getByTestId("balance-change").last()).toContainText("8.5 +1.5 = 10");
  await screenshotBoth(page, "refund-done");

  const report = await verifyLedger(database.db, { accountId: owner.accountId });
  expect(report.violations).toEqual([]);
});

test("in Chinese: the refund dialog, its confirmation and the refunded timeline", async ({ page, setting: { database, owner, support } }) => {
  const review = await writeReviewCase(database.db, owner.accountId, "0.75");
  await signInAs(page, support);
  await page.getByRole("button", { name: "中文" }).click();
  await page.goto(`/executions?id=${review.executionId}`);
  await expect(page.getByTestId("verdict")).toHaveText("待复核");
  await page.getByTestId("refund-open").click();
  const dialog = page.getByTestId("refund-dialog");
  await expect(dialog.getByLabel(/退还积分/)).toHaveValue("0.75");
  await dialog.getByLabel(/原因/).fill("服务商故障，全额退还");
  await screenshotPanel(page, "refund-dialog-zh");
  await dialog.getByRole("button", { name: "核对退款" }).click();
  await expect(dialog.getByTestId("refund-confirm")).toContainText(owner.accountId);
  await screenshotPanel(page, "refund-confirm-zh");
  await dialog.getByRole("button", { name: "确认退款" }).click();
  await expect(page.getByTestId("verdict")).toHaveText("已退款");
  await expect(page.getByTestId("refund-done")).toContainText("已退还 0.75 积分");
  await screenshotBoth(page, "refund-done-zh");
});

test("the owner sees the refunds on the Executions and Ledger pages, is never offered the action, and the review queue holds only open cases", async ({ page, setting: { database, owner } }) => {
  const open = await writeReviewCase(database.db, owner.accountId, "1");
  await signInAs(page, owner);
  await page.goto(`/executions?id=${open.executionId}`);
  await expect(page.getByTestId("verdict")).toHaveText("Needs review");
  await expect(page.getByTestId("call-trace")).toBeVisible();
  await expect(page.getByTestId("refund-open")).toHaveCount(0);

  await page.goto("/ledger?entry_type=refund_tool_execute");
  const refunds = page.getByTestId("ledger-row");
  await expect(refunds).toHaveCount(3);
  await expect(refunds.first()).toContainText("Call refund");
  await expect(refunds.getByTestId("ledger-amount")).toHaveText(["+0.75", "+1.5", "+1"]);
  await screenshotBoth(page, "ledger-refunds");

  await page.goto("/usage?anomaly=failed_charged_review");
  await expect(page.getByTestId("usage-row")).toHaveCount(1);
  await expect(page.getByTestId("usage-row").locator(`a[title="${open.executionId}"]`)).toBeVisible();
});

test("support keeps the customer's account: the lookup says whose it is, and its ledger, usage and lookup links stay in it", async ({ page, setting: { database, owner, support } }) => {
  const review = await writeReviewCase(database.db, owner.accountId, "0.5");
  await signInAs(page, support);
  await page.goto(`/executions?id=${review.executionId}`);
  const account = page.getByTestId("lookup-account");
  await expect(account).toContainText("Refund Owner");
  await expect(account).toContainText(owner.email);
  await expect(account).toContainText(owner.accountId);
  await screenshotBoth(page, "support-lookup-account");

  // The Call's ledger row opens in the customer's ledger, not in support's own (which is empty).
  await page.getByTestId("call-trace").getByRole("link", { name: review.ledgerEntryId }).click();
  await expect(page).toHaveURL(new RegExp(`/ledger\\?.*account_id=${owner.accountId}`));
  const entry = page.getByTestId("entry-details");
  await expect(entry).toContainText(review.executionId);
  // Every page support opens for the customer says whose account it is.
  const banner = page.getByTestId("account-in-view");
  await expect(banner).toContainText("Refund Owner");
  await expect(banner).toContainText(owner.email);
  await screenshotPanel(page, "support-ledger-entry-in-account");

  await entry.getByTestId("entry-to-event").click();
  await expect(page).toHaveURL(new RegExp(`/usage\\?.*account_id=${owner.accountId}`));
  const event = page.getByTestId("event-panel");
  await expect(event).toContainText(review.ledgerEntryId);

  await event.getByTestId("event-to-execution").click();
  await expect(page).toHaveURL(new RegExp(`/executions\\?.*account_id=${owner.accountId}`));
  await expect(page.getByTestId("lookup-account")).toContainText("Refund Owner");

  // The way back: support's own ledger, without the customer's account.
  await page.goto(`/ledger?account_id=${owner.accountId}&direction=consume`);
  await expect(page.getByTestId("ledger-row").first()).toBeVisible();
  await screenshotBoth(page, "support-ledger-in-account");
  await page.getByTestId("back-to-own-account").click();
  await expect(page).toHaveURL(/\/ledger\?direction=consume$/);
  await expect(page.getByTestId("account-in-view")).toHaveCount(0);
});

test("in Chinese, on a phone: the banner naming the customer's account", async ({ page, setting: { owner, support } }) => {
  await signInAs(page, support);
  await page.getByRole("button", { name: "中文" }).click();
  await page.goto(`/usage?account_id=${owner.accountId}`);
  await expect(page.getByTestId("account-in-view")).toContainText("正在查看客户的账户");
  await expect(page.getByTestId("account-in-view")).toContainText("Refund Owner");
  await screenshotBoth(page, "support-usage-in-account-zh");
});

test("support's home: one box for any id or account, and the review queue across accounts with a one-dialog refund", async ({ page, setting: { database, owner, support } }) => {
  await writeReviewCase(database.db, owner.accountId, "0.25");
  const other = await seedAccount(database.db, { credits: "5", name: "Queue Co" });
  const queued = await writeReviewCase(database.db, other.accountId, "1.25");
  await signInAs(page, support);
  await expect(page.getByRole("heading", { name: "Support", level: 1 })).toBeVisible();
  const row = page.getByTestId("review-case").filter({ hasText: "Queue Co" });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("review-open-credits")).toHaveText("1.25");
  // Oldest first: the owner's open cases, written by the tests above, come before it.
  await expect(page.getByTestId("review-case").first()).toContainText("Refund Owner");
  await expect(page.getByTestId("review-case").last()).toContainText("Queue Co");
  await screenshotBoth(page, "support-home");

  await row.getByTestId("refund-open").click();
  const dialog = page.getByTestId("refund-dialog");
  await expect(dialog.getByLabel(/Credits to refund/)).toHaveValue("1.25");
  await dialog.getByLabel(/Reason/).fill("Provider outage");
  await dialog.getByRole("button", { name: "Review refund" }).click();
  await expect(dialog.getByTestId("refund-confirm")).toContainText(other.accountId);
  await dialog.getByRole("button", { name: "Confirm refund" }).click();
  await expect(page.getByTestId("review-case").filter({ hasText: "Queue Co" })).toHaveCount(0);
  const report = await verifyLedger(database.db, { accountId: other.accountId });
  expect(report.violations).toEqual([]);

  await page.getByTestId("support-search").fill(owner.accountId);
  await page.getByTestId("support-search").press("Enter");
  await expect(page).toHaveURL(new RegExp(`/usage\\?account_id=${owner.accountId}$`));
  await expect(page.getByTestId("account-in-view")).toContainText("Refund Owner");
  // A customer who writes in by email: their one account opens; an unknown address says so.
  await page.goto("/");
  await page.getByTestId("support-search").fill(other.email.toUpperCase());
  await page.getByTestId("support-search").press("Enter");
  await expect(page).toHaveURL(new RegExp(`/usage\\?account_id=${other.accountId}$`));
  await expect(page.getByTestId("account-in-view")).toContainText("Queue Co");
  await page.goto("/");
  await page.getByTestId("support-search").fill("nobody@example.test");
  await page.getByTestId("support-search").press("Enter");
  await expect(page.getByTestId("support-email-result")).toContainText("No user has the address nobody@example.test.");

  await page.getByTestId("support-search").fill(queued.ledgerEntryId);
  await page.getByTestId("support-search").press("Enter");
  await expect(page.getByTestId("lookup-account")).toContainText("Queue Co");

  await page.goto("/");
  await page.getByRole("button", { name: "中文" }).click();
  await expect(page.getByRole("heading", { name: "客服", level: 1 })).toBeVisible();
  await expect(page.getByTestId("review-case").first()).toBeVisible();
  await screenshotBoth(page, "support-home-zh");
});

import path from "node:path";
import type { Page } from "@playwright/test";
import { adminCommand, canSeed, seedUser } from "./admin";
import { DESKTOP_VIEWPORT, PHONE_VIEWPORT, SCREENSHOT_DIR, expect, signIn, test } from "./fixtures";

/**
 * Credits granted with an expiry show on the Overview, soonest first, in both languages. The
 * account is seeded through the server's admin channel with `credits grant --expires-at`, as an
 * operator would grant them.
 */
const DAY = 24 * 3_600_000;

/** The viewport at both widths, the card scrolled into view, for a person to look at. */
async function screenshotCard(page: Page, name: string): Promise<void> {
  for (const [viewport, suffix] of [
    [DESKTOP_VIEWPORT, "desktop"],
    [PHONE_VIEWPORT, "phone"],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.getByTestId("upcoming-expirations").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${suffix}.png`) });
  }
  await page.setViewportSize(DESKTOP_VIEWPORT);
}

test.describe("Overview: upcoming expirations", () => {
  test.skip(!canSeed(), "needs the admin channel of the server started by global setup");

  test("lists expiring grants soonest first with what is left, in English and Chinese; hidden without any", async ({ page }) => {
    const user = await seedUser({ label: "expiry", credits: 100 });
    const sooner = new Date(Date.now() + 10 * DAY);
    const later = new Date(Date.now() + 40 * DAY);
    const grant = (amount: string, type: string, at: Date) =>
      adminCommand(["credits", "grant", "--account", user.accountId, "--amount", amount, "--type", type, "--expires-at", at.toISOString()]);
    await grant("40", "payment_recharge", later);
    await grant("25", "welcome_bonus", sooner);

    await signIn(page, user);
    const card = page.getByTestId("upcoming-expirations");
    await expect(card.getByRole("heading", { name: "Upcoming expirations" })).toBeVisible();
    await expect(card.getByTestId("expiring-total")).toHaveText("65 credits expire");
    const rows = card.getByTestId("expiration-row");
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText("Bonus");
    await expect(rows.nth(0).getByTestId("expiration-remaining")).toHaveText("25");
    await expect(rows.nth(0)).toContainText(`Expires ${sooner.toISOString().slice(0, 10)}`);
    await expect(rows.nth(0)).toContainText("in 10 days");
    await expect(rows.nth(1)).toContainText("Paid");
    await expect(rows.nth(1).getByTestId("expiration-remaining")).toHaveText("40");
    // The balance counts the expiring credits until they expire.
    await expect(page.getByTestId("balance-total-available")).toHaveText("165");
    await screenshotCard(page, "overview-expirations");

    await page.getByRole("button", { name: "中文" }).click();
    await expect(card.getByRole("heading", { name: "即将过期的积分" })).toBeVisible();
    await expect(card.getByTestId("expiring-total")).toHaveText("共 65 积分将过期");
    await expect(rows.nth(0)).toContainText("赠送积分");
    await expect(rows.nth(0)).toContainText("10天后");
    await screenshotCard(page, "overview-expirations-zh");
  });

  test("a grant that expires leaves the balance through its own ledger row, and the Overview still reconciles", async ({ page }) => {
    test.setTimeout(90_000);
    const user = await seedUser({ label: "expired", credits: 10 });
    await adminCommand(["credits", "grant", "--account", user.accountId, "--amount", "5", "--type", "welcome_bonus", "--expires-at", new Date(Date.now() + 2_000).toISOString()]);
    await signIn(page, user);
    // The server's sweeper (every 15 s) expires it.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByTestId("balance-total-available").textContent();
        },
        { timeout: 45_000, intervals: [3_000] },
      )
      .toBe("10");
    await expect(page.getByTestId("upcoming-expirations")).toHaveCount(0);
    const reconciliation = page.getByTestId("reconciliation");
    await expect(reconciliation).toContainText("Reconciled");
    await expect(reconciliation).toContainText("5 credits expired in the window");
    await reconciliation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "overview-reconciled-after-expiry-desktop.png") });

    await page.goto("/ledger");
    await expect(page.getByTestId("ledger-row").filter({ hasText: "Expired bonus credits" })).toHaveCount(1);
  });

  test("an account without expiring credits shows no card", async ({ page }) => {
    await signIn(page, await seedUser({ label: "no-expiry", credits: 10 }));
    await expect(page.getByTestId("balance-total-available")).toHaveText("10");
    const expirations = page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/credits/expirations"));
    await page.reload();
    expect((await expirations).status()).toBe(200);
    await expect(page.getByTestId("balance-total-available")).toHaveText("10");
    await expect(page.getByTestId("upcoming-expirations")).toHaveCount(0);
  });
});

import path from "node:path";
import { test as base, expect, type Page } from "@playwright/test";

export { expect };

/** Seeded by the server into every empty database (lib/seed/seed-demo.ts). */
export const DEMO_USER = { email: "demo@tollgate.local", password: "tollgate-demo" } as const;

export const SCREENSHOT_DIR = path.join("test-results", "screenshots");

export const PHONE_VIEWPORT = { width: 390, height: 844 } as const;
export const DESKTOP_VIEWPORT = { width: 1280, height: 800 } as const;

export const test = base.extend({
  // The server's address is known only after global setup has started it.
  baseURL: async ({}, use) => {
    const url = process.env.E2E_BASE_URL;
    if (!url) throw new Error("E2E_BASE_URL is not set: run the tests through `npx playwright test`");
    await use(url);
  },
});

/**
 * Signs in through the login form, the way a person does, and waits for Overview. It finds the
 * fields by their types, so it reads the same in either language; the first sign-in after a start
 * on a busy machine may take longer than an assertion's default.
 */
export async function signIn(page: Page, user: { email: string; password: string } = DEMO_USER): Promise<void> {
  await page.goto("/login");
  await page.locator('input[type="email"]').fill(user.email);
  await page.locator('input[type="password"]').fill(user.password);
  await page.locator('button[type="submit"]').click();
  await expect(page).toHaveURL(/\/$/, { timeout: 30_000 });
}

/** A full-page screenshot under test-results/screenshots/, for a person to look at. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * Both widths of one page, full length, for a person to look at; on the phone the page must not
 * scroll sideways (anything wider, a table or a JSON result, scrolls inside its own box).
 */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  // Full-page captures draw fixed and sticky bars where the viewport was: start from the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.setViewportSize(DESKTOP_VIEWPORT);
  await saveScreenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE_VIEWPORT);
  await page.evaluate(() => window.scrollTo(0, 0));
  // Charts follow the new width a frame later: poll.
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), { message: `${name}: the page is wider than a phone` })
    .toBeLessThanOrEqual(0);
  await saveScreenshot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP_VIEWPORT);
}

/** A side panel or dialog is fixed to the viewport: capture the viewport, at both widths. */
export async function screenshotPanel(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP_VIEWPORT);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-desktop.png`) });
  await page.setViewportSize(PHONE_VIEWPORT);
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-phone.png`) });
  await page.setViewportSize(DESKTOP_VIEWPORT);
}

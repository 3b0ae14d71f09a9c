import { DEMO_USER, DESKTOP_VIEWPORT, PHONE_VIEWPORT, expect, saveScreenshot, signIn, test } from "./fixtures";
import { expectNoSeriousViolations } from "./axe";

test.describe("dashboard sign-in", () => {
  test("an unauthenticated visit to a dashboard page redirects to the login page, which brings the person back to it", async ({ page }) => {
    await page.goto("/usage?range=7d");
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fusage%3Frange%3D7d$/);
    await expect(page.getByRole("heading", { name: "Sign in to Tollgate" })).toBeVisible();
    await expect(page.getByTestId("demo-hint")).toContainText(DEMO_USER.email);
    await saveScreenshot(page, "login-desktop");
    await page.getByLabel("Email").fill(DEMO_USER.email);
    await page.getByLabel("Password").fill(DEMO_USER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/usage\?range=7d$/);
  });

  test("a wrong password shows an error and keeps the user on the login page", async ({ page }) => {
    await page.goto("/login");
    await page.getByLabel("Email").fill(DEMO_USER.email);
    await page.getByLabel("Password").fill("not-the-password");
    // Submitting with Enter: the form is usable from the keyboard.
    await page.getByLabel("Password").press("Enter");
    // (Next's route announcer is an empty role="alert" too, hence the text filter.)
    await expect(page.getByRole("alert").filter({ hasText: "Incorrect email or password." })).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);
    await saveScreenshot(page, "login-error");
  });

  test("the demo user signs in and sees 1,000 credits available on Overview", async ({ page }) => {
    await signIn(page);
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
    await expect(page.getByTestId("balance-total-available")).toHaveText("1,000");
    await expect(page.getByTestId("balance-bonus")).toHaveText("1,000");
    await expect(page.getByTestId("balance-paid")).toHaveText("0");
    await expect(page.getByTestId("balance-reward")).toHaveText("0");
    await expect(page.getByTestId("balance-reserved")).toHaveText("0");
    await expect(page.getByTestId("shell-user-email")).toHaveText(DEMO_USER.email);
    await saveScreenshot(page, "overview-desktop");

    await page.setViewportSize(PHONE_VIEWPORT);
    await expect(page.getByRole("button", { name: "Open menu" })).toBeVisible();
    await saveScreenshot(page, "overview-phone");
    await page.getByRole("button", { name: "Open menu" }).click();
    await expect(page.getByRole("link", { name: "Ledger" })).toBeVisible();
    await saveScreenshot(page, "overview-phone-menu");
    await page.getByRole("link", { name: "Ledger" }).click();
    await expect(page).toHaveURL(/\/ledger$/);
    await expect(page.getByRole("heading", { name: "Ledger", level: 1 })).toBeVisible();
    await expect(page.getByRole("button", { name: "Open menu" })).toBeVisible();
    await page.setViewportSize(DESKTOP_VIEWPORT);
    await saveScreenshot(page, "ledger-placeholder-desktop");
  });

  test("every navigation entry opens its page", async ({ page }) => {
    await signIn(page);
    const pages: [string, RegExp][] = [
      ["Playground", /\/playground$/],
      ["Console", /\/console$/],
      ["Usage", /\/usage$/],
      ["Ledger", /\/ledger$/],
      ["Executions", /\/executions$/],
      ["API keys", /\/keys$/],
      ["Overview", /\/$/],
    ];
    const nav = page.getByRole("navigation", { name: "Main navigation" });
    for (const [name, url] of pages) {
      await nav.getByRole("link", { name }).click();
      await expect(page).toHaveURL(url);
      await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
      await expect(nav.getByRole("link", { name })).toHaveAttribute("aria-current", "page");
    }
  });

  test("switching to 中文 shows Chinese labels, and the choice survives a reload", async ({ page }) => {
    await signIn(page);
    await page.getByRole("button", { name: "中文" }).click();
    await expect(page.getByRole("heading", { name: "概览", level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: "用量" })).toBeVisible();
    await expect(page.getByText("可用总额")).toBeVisible();
    await expect(page.getByRole("button", { name: "退出登录" })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await saveScreenshot(page, "overview-zh-desktop");

    await page.reload();
    await expect(page.getByRole("heading", { name: "概览", level: 1 })).toBeVisible();
    await page.setViewportSize(PHONE_VIEWPORT);
    await saveScreenshot(page, "overview-zh-phone");

    await page.getByRole("button", { name: "打开菜单" }).click();
    await page.getByRole("button", { name: "EN" }).click();
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  });

  test("signing out returns to the login page and the dashboard is protected again", async ({ page }) => {
    await signIn(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await page.goto("/");
    await expect(page).toHaveURL(/\/login$/);
  });
});

test.describe("dashboard API token", () => {
  test("is refused without a session", async ({ request }) => {
    const res = await request.get("/api/dashboard/token");
    expect(res.status()).toBe(401);
  });

  test("is a 300-second JWT that the public API accepts for the signed-in user's account", async ({ page }) => {
    await signIn(page);
    const res = await page.request.get("/api/dashboard/token");
    expect(res.status()).toBe(200);
    expect(res.headers()["cache-control"]).toContain("no-store");
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(300);

    const credits = await page.request.get("/api/v1/auth/credits", { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(credits.status()).toBe(200);
    const balance = (await credits.json()) as { status_code: number; data: { total_available_credits: number } };
    expect(balance.status_code).toBe(0);
    expect(balance.data.total_available_credits).toBe(1000);
  });
});

test.describe("Overview states", () => {
  test("a failing balance request shows an error with a working retry", async ({ page }) => {
    await signIn(page);
    let failing = true;
    await page.route("**/api/v1/auth/credits", (route) =>
      failing
        ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ status: "failure", status_code: 503, message: "Service unavailable" }) })
        : route.fallback(),
    );
    await page.reload();
    const alert = page.getByRole("alert").filter({ hasText: "Could not load the balance" });
    await expect(alert).toBeVisible({ timeout: 20_000 });
    await expect(alert).toContainText("Service unavailable");
    await saveScreenshot(page, "overview-error");
    await expectNoSeriousViolations(page, "Overview with a failed request");
    failing = false;
    await alert.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByTestId("balance-total-available")).toHaveText("1,000");
  });

  test("an account without credits is told how to get some", async ({ page }) => {
    await signIn(page);
    await page.route("**/api/v1/auth/credits", async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { data: Record<string, unknown> };
      const zero = { paid_credits: 0, bonus_credits: 0, reward_credits: 0, reserved_credits: 0, total_credits: 0, total_available_credits: 0 };
      await route.fulfill({ response: res, json: { ...body, data: { ...body.data, ...zero } } });
    });
    await page.reload();
    await expect(page.getByTestId("balance-empty")).toContainText("No credits yet");
    await expect(page.getByTestId("balance-total-available")).toHaveText("0");
    await saveScreenshot(page, "overview-empty");
  });
});

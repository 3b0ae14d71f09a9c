import { generate } from "otplib";
import type { Page } from "@playwright/test";
import { adminCommand, seedUser } from "./admin";
import { expect, screenshotBoth, signIn, test } from "./fixtures";

/**
 * Two-factor sign-in (issue 43): a user enrols through the Security page with the key it shows,
 * confirms with a code computed here as an authenticator would, keeps the recovery codes, and then
 * signs in with the password and a code. An owner who uses it requires it of every member, and a
 * member without it meets enrolment before anything else.
 */

/** The code an authenticator shows `offsetSteps` 30-second steps from now (the server takes one step either side). */
const codeFor = (secret: string, offsetSteps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

async function startEnrolment(page: Page, password: string, labels = { setUp: "Set up two-factor sign-in", password: "Enter your password to start", go: "Continue" }): Promise<string> {
  await page.getByRole("button", { name: labels.setUp }).click();
  await page.getByLabel(labels.password).fill(password);
  await page.getByRole("button", { name: labels.go }).click();
  const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").replace(/\s/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await expect(page.getByTestId("two-factor-enrolment").getByRole("img")).toBeVisible();
  return secret;
}

test("a user enrols with the page's QR key and a computed code, keeps the recovery codes, and signs in with password then a TOTP code", async ({ page }) => {
  const user = await seedUser({ label: "two-factor" });
  await signIn(page, user);
  await page.getByRole("link", { name: "Security" }).first().click();
  await expect(page).toHaveURL(/\/security$/);
  await expect(page.getByTestId("two-factor-status")).toContainText("Off");

  // The enrolment in Chinese first (a fresh start replaces an unconfirmed secret), then in English.
  await page.getByRole("button", { name: "中文" }).click();
  await expect(page.getByRole("heading", { name: "两步验证登录", exact: true })).toBeVisible();
  await startEnrolment(page, user.password, { setUp: "设置两步验证登录", password: "输入密码以开始", go: "继续" });
  await screenshotBoth(page, "two-factor-enrolment-zh");
  await page.getByRole("button", { name: "EN", exact: true }).click();
  await page.reload();

  const secret = await startEnrolment(page, user.password);
  await screenshotBoth(page, "two-factor-enrolment");

  const enrolment = page.getByTestId("two-factor-enrolment");
  await enrolment.getByLabel("6-digit code").fill(await codeFor(secret, 3));
  await enrolment.getByRole("button", { name: "Turn on" }).click();
  await expect(enrolment.getByRole("alert")).toContainText("Wrong code");
  await enrolment.getByLabel("6-digit code").fill(await codeFor(secret));
  await enrolment.getByRole("button", { name: "Turn on" }).click();
  const codes = page.getByTestId("recovery-code");
  await expect(codes).toHaveCount(10);
  const recovery = await codes.allTextContents();
  expect(new Set(recovery).size).toBe(10);
  await screenshotBoth(page, "two-factor-recovery-codes");
  await page.getByRole("button", { name: "I have saved them" }).click();
  await expect(page.getByTestId("two-factor-status")).toContainText("On");
  await expect(page.getByTestId("two-factor-status")).toContainText("10 unused recovery codes");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  const codeStep = page.getByTestId("login-code-step");
  await expect(codeStep).toContainText("Enter the 6-digit code from your authenticator app");
  await codeStep.getByLabel("Authentication code").fill("000000");
  await codeStep.getByRole("button", { name: "Verify" }).click();
  await expect(codeStep.getByRole("alert")).toContainText("That code is not valid");
  // The code the enrolment used is spent: the next step's code, as an authenticator shows it a moment later.
  await codeStep.getByLabel("Authentication code").fill(await codeFor(secret, 1));
  await codeStep.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
});

test("an owner who uses two-factor sign-in requires it; a member without it meets enrolment before anything else", async ({ page, browser }) => {
  const owner = await seedUser({ label: "two-factor-owner" });
  await signIn(page, owner);
  await page.goto("/security");
  const toggle = page.getByLabel("Require two-factor sign-in for every member");
  await expect(toggle).toBeDisabled();
  await expect(page.getByText("Turn on your own two-factor sign-in first.")).toBeVisible();
  const secret = await startEnrolment(page, owner.password);
  await page.getByTestId("two-factor-enrolment").getByLabel("6-digit code").fill(await codeFor(secret));
  await page.getByRole("button", { name: "Turn on" }).click();
  await page.getByRole("button", { name: "I have saved them" }).click();
  await expect(toggle).toBeEnabled();
  // A controlled switch: it turns once the API has saved the requirement.
  await toggle.click();
  await expect(toggle).toBeChecked();
  await expect(page.getByText(/^Required since/)).toBeVisible();

  const email = `e2e-two-factor-member-${Date.now()}@example.test`;
  await adminCommand(["users", "create", "--account", owner.accountId, "--email", email, "--password", "member-password-1", "--role", "member"]);
  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  await signIn(memberPage, { email, password: "member-password-1" });
  await expect(memberPage.getByTestId("two-factor-required")).toContainText("This account requires two-factor sign-in");
  // Any page shows the enrolment in its place.
  await memberPage.goto("/keys");
  await expect(memberPage.getByTestId("two-factor-required")).toBeVisible();
  await expect(memberPage.getByRole("heading", { name: "API keys", level: 1 })).toHaveCount(0);
  const memberSecret = await startEnrolment(memberPage, "member-password-1");
  await memberPage.getByTestId("two-factor-enrolment").getByLabel("6-digit code").fill(await codeFor(memberSecret));
  await memberPage.getByRole("button", { name: "Turn on" }).click();
  await memberPage.getByRole("button", { name: "I have saved them" }).click();
  // Enrolled: the page asked for is there.
  await expect(memberPage.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
  await expect(memberPage.getByTestId("two-factor-required")).toHaveCount(0);
  await memberContext.close();
});

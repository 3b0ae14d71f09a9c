import fs from "node:fs/promises";
import crypto from "node:crypto";
import path from "node:path";
import type { Browser, Page } from "@playwright/test";
import { adminCommand, seedUser } from "./admin";
import { DESKTOP_VIEWPORT, PHONE_VIEWPORT, SCREENSHOT_DIR, expect, screenshotBoth, screenshotPanel, signIn, test } from "./fixtures";

/**
 * A team in one account (issue 43): invitations from the Members page, joining through the link in
 * another browser, the Activity page, role changes and removal (the removed member's open session
 * is refused at its next request), the last owner kept, and switching between accounts.
 */

const rand = () => crypto.randomBytes(4).toString("hex");

/** The owner invites `email` with `role` from the Members page and returns the link the page shows. */
async function invite(page: Page, email: string, role: "Member" | "Owner" = "Member"): Promise<string> {
  await page.goto("/members");
  const form = page.getByTestId("invite-form");
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption({ label: role });
  await form.getByRole("button", { name: "Send invitation" }).click();
  const sent = page.getByTestId("invitation-sent");
  await expect(sent).toContainText(`${email} is invited`);
  // No SMTP in this server: the page says so, and the link is there to copy.
  await expect(sent).toContainText(/No mail was sent|was mailed/);
  const url = (await page.getByTestId("invitation-url").textContent())?.trim() ?? "";
  expect(url).toMatch(/\/invite\/tgi_/);
  return url;
}

/** A second browser (its own cookies) opening the link on this server, whatever public URL it names. */
async function openInvitation(browser: Browser, baseURL: string, url: string): Promise<Page> {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto(new URL(url).pathname);
  return page;
}

async function accessToken(page: Page): Promise<string> {
  const res = await page.request.get("/api/dashboard/token");
  expect(res.status()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

test("an owner invites a member who joins through the link and creates a key; Activity shows both; demoted then removed, the member's open session and the key they created are refused; the last owner stays", async ({ page, browser, baseURL }) => {
  const owner = await seedUser({ label: "team-owner" });
  const joiner = { email: `e2e-joiner-${rand()}@example.test`, password: `joiner-${rand()}-pw` };

  await signIn(page, owner);
  await page.goto("/members");
  await expect(page.getByTestId("member-row")).toHaveCount(1);
  await expect(page.getByTestId("member-row")).toContainText(owner.email);
  await expect(page.getByTestId("invitations-empty")).toBeVisible();
  const url = await invite(page, joiner.email);
  await expect(page.getByTestId("invitation-row").filter({ hasText: joiner.email })).toContainText("Pending");

  // The member's own browser: the page names the account, the email and the role.
  const memberPage = await openInvitation(browser, baseURL!, url);
  await expect(memberPage.getByTestId("invitation-details")).toContainText(joiner.email);
  await expect(memberPage.getByTestId("invitation-details")).toContainText("Member");
  await screenshotBoth(memberPage, "invite");
  await memberPage.getByLabel("Choose a password").fill("short");
  await memberPage.getByLabel("Repeat the password").fill("short");
  await memberPage.getByRole("button", { name: "Join the account" }).click();
  await expect(memberPage.getByTestId("accept-error")).toContainText("at least 8 characters");
  await memberPage.getByLabel("Choose a password").fill(joiner.password);
  await memberPage.getByLabel("Repeat the password").fill(`${joiner.password}-typo`);
  await memberPage.getByRole("button", { name: "Join the account" }).click();
  await expect(memberPage.getByTestId("accept-error")).toContainText("The two passwords differ.");
  await memberPage.getByLabel("Repeat the password").fill(joiner.password);
  await memberPage.getByRole("button", { name: "Join the account" }).click();
  await expect(memberPage).toHaveURL(/\/$/);
  await expect(memberPage.getByTestId("shell-user-email").first()).toHaveText(joiner.email);

  // The link worked once.
  await memberPage.goto(new URL(url).pathname);
  await expect(memberPage.getByTestId("invitation-unusable")).toContainText("This invitation has already been used.");

  // The member creates an API key, and reads the Members page without its controls.
  await memberPage.goto("/keys");
  await memberPage.getByLabel("Name").fill("joiner key");
  await memberPage.getByRole("button", { name: "Create key" }).click();
  const joinerKey = (await memberPage.getByTestId("new-key-value").textContent())!.trim();
  await memberPage.getByTestId("new-key-dialog").getByRole("button", { name: "I have saved it" }).click();
  await memberPage.goto("/members");
  await expect(memberPage.getByTestId("members-read-only")).toBeVisible();
  await expect(memberPage.getByTestId("invite-form")).toHaveCount(0);
  await expect(memberPage.getByRole("button", { name: /^Remove / })).toHaveCount(0);
  await screenshotBoth(memberPage, "members-member");

  // The owner sees them joined, with the key they created.
  await page.reload();
  const joinerRow = page.getByTestId("member-row").filter({ hasText: joiner.email });
  await expect(joinerRow).toContainText("Member");
  await expect(joinerRow.getByTestId("member-keys")).toContainText("joiner key");
  await expect(page.getByTestId("invitation-row").filter({ hasText: joiner.email })).toContainText("Used");
  await screenshotBoth(page, "members");

  // Activity: the join and the key creation, newest first, with who and from where.
  await page.goto("/activity");
  const rows = page.getByTestId("activity-row");
  const joined = rows.filter({ has: page.locator('[data-action="member.joined"]') }).filter({ hasText: joiner.email });
  await expect(joined).toHaveCount(1);
  await expect(joined).toContainText("Member joined");
  await expect(joined.getByTestId("activity-change")).toContainText("Role: Member");
  await expect(joined.getByTestId("activity-change")).not.toContainText("role:");
  // Recorded by the API's hook on key creation (lib/api/routes/api-keys-create.ts).
  const keyCreated = rows.filter({ has: page.locator('[data-action="api_key.created"]') });
  await expect(keyCreated).toHaveCount(1);
  await expect(keyCreated).toContainText(joiner.email);
  await expect(keyCreated).toContainText("joiner key");
  await expect(rows.first().locator("[data-action]")).toHaveAttribute("data-action", "api_key.created");
  await expect(page.getByRole("columnheader", { name: "When (UTC)" })).toBeVisible();
  await screenshotBoth(page, "activity");

  // A filter lives in the URL and is sent to the API; the CSV is the same filter.
  await page.getByLabel("What").selectOption({ label: "Member joined" });
  await expect(page).toHaveURL(/action=member\.joined/);
  await expect(rows.locator("[data-action]").first()).toHaveAttribute("data-action", "member.joined");
  await expect(rows.filter({ has: page.locator('[data-action="api_key.created"]') })).toHaveCount(0);
  const downloading = page.waitForEvent("download");
  await page.getByTestId("activity-export").click();
  const csv = await fs.readFile((await (await downloading).path())!, "utf8");
  expect(csv.split("\n")[0]).toContain("action");
  expect(csv).toContain(joiner.email);
  expect(csv).not.toContain("api_key.created");

  // Promoted, the member gets the owner's controls at their next request; demoted, they lose them.
  const changeRole = async (email: string, role: "Owner" | "Member") => {
    await page.goto("/members");
    await page.getByRole("button", { name: `Change the role of ${email}` }).click();
    const dialog = page.getByTestId("role-dialog");
    await dialog.getByLabel("Role").selectOption({ label: role });
    await dialog.getByRole("button", { name: "Save role" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("member-row").filter({ hasText: email })).toContainText(role);
  };
  await changeRole(joiner.email, "Owner");
  await memberPage.reload();
  await expect(memberPage.getByTestId("invite-form")).toBeVisible();
  await changeRole(joiner.email, "Member");
  await memberPage.reload();
  await expect(memberPage.getByTestId("members-read-only")).toBeVisible();

  // Removed: the key they created is revoked with them (unless the owner keeps it), and their open session ends.
  const memberToken = await accessToken(memberPage);
  const keyWorks = async () => (await fetch(`${baseURL}/api/v1/auth/credits`, { headers: { authorization: `Bearer ${joinerKey}` } })).status;
  expect(await keyWorks()).toBe(200);
  await page.getByRole("button", { name: `Remove ${joiner.email}` }).click();
  const removeDialog = page.getByTestId("remove-member-dialog");
  await expect(removeDialog).toContainText("The API key they created is revoked with them");
  await expect(removeDialog.getByTestId("remove-member-keys")).toContainText("joiner key");
  const keep = removeDialog.getByRole("checkbox", { name: "Keep their key working" });
  await expect(keep).not.toBeChecked();
  await keep.check();
  await expect(removeDialog).toContainText("The API key they created stays with the account and keeps working");
  await screenshotPanel(page, "members-remove-keep-keys");
  await keep.uncheck();
  await screenshotPanel(page, "members-remove-dialog");
  await removeDialog.getByRole("button", { name: "Remove member" }).click();
  const removed = page.getByTestId("member-removed");
  await expect(removed).toContainText(`${joiner.email} was removed`);
  await expect(removed).toContainText("1 API key they created was revoked");
  await expect(removed.getByTestId("keys-revoked")).toContainText("joiner key");
  await expect(page.getByTestId("member-row")).toHaveCount(1);
  await screenshotBoth(page, "members-removed");
  expect(await keyWorks()).toBe(401);

  const refused = await memberPage.request.get("/api/v1/auth/api-keys", { headers: { authorization: `Bearer ${memberToken}` } });
  expect(refused.status()).toBe(401);
  expect((await memberPage.request.get("/api/dashboard/token")).status()).toBe(401);
  await memberPage.getByRole("link", { name: "API keys" }).first().click();
  await expect(memberPage).toHaveURL(/\/login/);
  await memberPage.context().close();

  // The last owner can neither leave nor be demoted (the API refuses both: lib/api/routes/account-members.int.test.ts),
  // so the page offers neither and says why.
  await expect(page.getByRole("button", { name: `Remove ${owner.email}` })).toHaveCount(0);
  await expect(page.getByRole("button", { name: `Change the role of ${owner.email}` })).toHaveCount(0);
  await expect(page.getByTestId("member-row").filter({ hasText: owner.email }).getByTestId("last-owner")).toHaveText("The last owner: make another member an owner first");
  await screenshotPanel(page, "members-last-owner");

  // Every step is in the log, in Chinese too.
  await page.goto("/activity");
  for (const action of ["member.invited", "member.joined", "api_key.created", "member.role_changed", "member.removed"]) {
    await expect(rows.filter({ has: page.locator(`[data-action="${action}"]`) }).first()).toBeVisible();
  }
  const demoted = rows.filter({ has: page.locator('[data-action="member.role_changed"]') }).first();
  // In words: the field's label and the roles' names, never `role: owner → member`.
  await expect(demoted.getByTestId("activity-change")).toContainText("Role: Owner → Member");
  await page.getByRole("button", { name: "中文" }).first().click();
  await expect(rows.filter({ has: page.locator('[data-action="member.removed"]') })).toContainText("移除了成员");
  await expect(demoted.getByTestId("activity-change")).toContainText("角色: 所有者 → 成员");
  await expect(page.getByRole("columnheader", { name: "时间（UTC）" })).toBeVisible();
  await screenshotBoth(page, "activity-zh");
  await page.goto("/members");
  await expect(page.getByTestId("invitation-row").first()).toContainText("已使用");
  await screenshotBoth(page, "members-zh");
  await page.getByRole("button", { name: "EN", exact: true }).first().click();
});

test("a revoked or unknown invitation link says so and lets nobody in", async ({ page, browser, baseURL }) => {
  const owner = await seedUser({ label: "team-revoke" });
  await signIn(page, owner);
  const email = `e2e-revoked-${rand()}@example.test`;
  const url = await invite(page, email);
  await page.getByRole("button", { name: `Revoke the invitation of ${email}` }).click();
  await page.getByTestId("revoke-invitation-dialog").getByRole("button", { name: "Revoke invitation" }).click();
  await expect(page.getByTestId("invitation-row").filter({ hasText: email })).toContainText("Revoked");
  // An invitation the operator sent from the CLI names the operator, not a dash.
  const byCli = `e2e-cli-${rand()}@example.test`;
  await adminCommand(["members", "invite", "--account", owner.accountId, "--email", byCli]);
  await page.reload();
  await expect(page.getByTestId("invitation-row").filter({ hasText: byCli })).toContainText("The operator (CLI)");

  const other = await openInvitation(browser, baseURL!, url);
  await expect(other.getByTestId("invitation-unusable")).toHaveAttribute("data-status", "revoked");
  await expect(other.getByTestId("invitation-unusable")).toContainText("This invitation was revoked by the account's owner.");
  await expect(other.getByTestId("accept-form")).toHaveCount(0);
  await other.goto("/invite/tgi_not-a-real-token");
  await expect(other.getByTestId("invitation-unusable")).toContainText("This invitation link is not valid.");
  await screenshotBoth(other, "invite-unknown");
  await other.context().close();
});

test("a user of another account joins with their own password and switches between the two accounts", async ({ page, browser, baseURL }) => {
  const owner = await seedUser({ label: "team-host" });
  const guest = await seedUser({ label: "team-guest" });
  await signIn(page, owner);
  const url = await invite(page, guest.email);

  const guestPage = await openInvitation(browser, baseURL!, url);
  const hostName = (await guestPage.getByTestId("invitation-details").locator("dd").first().textContent())?.trim() ?? "";
  expect(hostName).toMatch(/^e2e team-host /);
  await expect(guestPage.getByLabel("Repeat the password")).toHaveCount(0);
  await guestPage.getByLabel("Your password").fill("not-the-password");
  await guestPage.getByRole("button", { name: "Join the account" }).click();
  await expect(guestPage.getByTestId("accept-error")).toContainText("That is not the password of this email.");
  await guestPage.getByLabel("Your password").fill(guest.password);
  await guestPage.getByRole("button", { name: "Join the account" }).click();
  await expect(guestPage).toHaveURL(/\/$/);
  // Signed in to the account just joined, not the one signed in to last.
  const accountName = guestPage.getByTestId("shell-account-name").first();
  await expect(accountName).toHaveText(hostName);

  await guestPage.getByTestId("account-switcher").first().click();
  const options = guestPage.getByTestId("account-option");
  await expect(options).toHaveCount(2);
  await expect(options.filter({ hasText: hostName })).toContainText("Member");
  const home = options.filter({ hasNotText: hostName });
  await expect(home).toContainText("Owner");
  const homeName = (await home.locator("span span").first().textContent())?.trim() ?? "";
  // The menu as it opens in the sidebar, and on a phone inside the top bar's menu.
  await guestPage.screenshot({ path: path.join(SCREENSHOT_DIR, "account-switcher-desktop.png") });
  await guestPage.setViewportSize(PHONE_VIEWPORT);
  await guestPage.getByRole("button", { name: "Open menu" }).click();
  await guestPage.locator("header").getByTestId("account-switcher").click();
  await expect(guestPage.locator("header").getByTestId("account-option")).toHaveCount(2);
  await guestPage.screenshot({ path: path.join(SCREENSHOT_DIR, "account-switcher-phone.png") });
  await guestPage.getByRole("button", { name: "Close menu" }).click();
  await guestPage.setViewportSize(DESKTOP_VIEWPORT);
  // A click elsewhere closed the sidebar's menu: open it again.
  await guestPage.locator("aside").getByTestId("account-switcher").click();
  await home.click();
  await expect(accountName).toHaveText(homeName);
  await expect(guestPage.getByTestId("shell-user-email").first()).toHaveText(guest.email);
  // The API follows the session: the guest is an owner here, so the invite form is offered.
  await guestPage.goto("/members");
  await expect(guestPage.getByTestId("invite-form")).toBeVisible();
  await guestPage.context().close();
});

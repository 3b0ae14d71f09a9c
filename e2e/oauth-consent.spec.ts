import crypto from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { adminCommand } from "./admin";
import { DEMO_USER, expect, saveScreenshot, screenshotBoth, signIn, test } from "./fixtures";

/** The authorization code grant's consent page: approve returns a code the client can redeem (PKCE). */

const REDIRECT = "http://127.0.0.1:9/e2e-callback";

/**
 * A public client registered for this test asks the signed-in demo user for `scope`: the browser
 * lands on the consent page. `redeem` follows the approval's redirect and exchanges its code.
 */
async function requestConsent(page: Page, request: APIRequestContext, clientName: string, scope: string) {
  const { client_id: clientId } = (await adminCommand([
    "clients", "create", "--name", clientName, "--type", "public", "--redirect-uri", REDIRECT, "--grant", "authorization_code",
  ])) as { client_id: string };
  const verifier = crypto.randomBytes(32).toString("base64url");
  const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
  const state = crypto.randomBytes(8).toString("hex");
  const authorize = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, scope, state, code_challenge: challenge, code_challenge_method: "S256" });

  // The client's redirect URI does not exist here: the browser's arrival there is captured instead.
  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/html", body: "<h1>Client callback</h1>" });
  });
  await signIn(page, DEMO_USER);
  await page.goto(`/api/v1/oauth/authorize?${authorize}`);
  await expect(page).toHaveURL(/\/oauth\/consent\?/);

  const redeem = async () => {
    await expect(page.getByRole("heading", { name: "Client callback" })).toBeVisible();
    expect(callback?.searchParams.get("state")).toBe(state);
    const code = callback?.searchParams.get("code");
    expect(code).toBeTruthy();
    const token = await request.post("/api/v1/oauth/token", {
      form: { grant_type: "authorization_code", code: code!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: clientId },
    });
    expect(token.status()).toBe(200);
    return (await token.json()) as { access_token: string; scope: string };
  };
  return { redeem };
}

test("the demo user approves on the consent page and the client redeems the code with its verifier", async ({ page, request }) => {
  const { redeem } = await requestConsent(page, request, "E2E Desktop App", "usage:read ledger:read");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("E2E Desktop App wants to access your account");
  await expect(page.getByText("You will be sent back to 127.0.0.1:9", { exact: false })).toBeVisible();
  await saveScreenshot(page, "oauth-consent");
  await page.getByRole("button", { name: "Approve" }).click();
  expect((await redeem()).scope).toBe("usage:read ledger:read");
});

test("an app asking to manage the account is told so plainly, and its token can then create an API key", async ({ page, request }) => {
  const { redeem } = await requestConsent(page, request, "Key Minting App", "tools:read account:manage");
  const scopes = page.getByTestId("requested-scopes");
  await expect(scopes).toContainText("Search and inspect tools");
  await expect(scopes).toContainText("Manage this account: create and revoke API keys (which spend its credits), change budgets, alerts and webhooks, refund Calls");
  await screenshotBoth(page, "oauth-consent-manage");
  await page.getByRole("button", { name: "中文" }).click();
  await expect(scopes).toContainText("管理此账户");
  await screenshotBoth(page, "oauth-consent-manage-zh");
  await page.getByRole("button", { name: "EN", exact: true }).click();
  await expect(scopes).toContainText("Manage this account");
  await page.getByRole("button", { name: "Approve" }).click();

  const { access_token: accessToken, scope } = await redeem();
  expect(scope).toBe("tools:read account:manage");
  const created = await request.post("/api/v1/auth/api-keys", { headers: { Authorization: `Bearer ${accessToken}` }, data: { name: "made by the app" } });
  expect(created.status()).toBe(200);
  // The usage history is not among what the user granted it: 403 insufficient_scope.
  const usage = await request.get("/api/v1/auth/usage/history/v2", { headers: { Authorization: `Bearer ${accessToken}` } });
  expect(usage.status()).toBe(403);
  expect(usage.headers()["www-authenticate"]).toContain('error="insufficient_scope", scope="usage:read"');
});

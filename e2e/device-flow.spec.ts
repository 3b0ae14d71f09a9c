import type { APIRequestContext } from "@playwright/test";
import { adminCommand, seedUser } from "./admin";
import { DEMO_USER, PHONE_VIEWPORT, DESKTOP_VIEWPORT, expect, saveScreenshot, signIn, test } from "./fixtures";

/**
 * The device authorization grant (RFC 8628) end to end: a client asks the API for a device code,
 * a person approves it in the dashboard, and the client's polling turns into tokens.
 */

const CLIENT_NAME = "E2E Agent CLI";

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  interval: number;
}

async function registerDeviceClient(): Promise<string> {
  const created = (await adminCommand(["clients", "create", "--name", CLIENT_NAME, "--type", "public", "--grant", "device_code", "--grant", "refresh_token"])) as {
    client_id: string;
  };
  return created.client_id;
}

async function startDeviceFlow(request: APIRequestContext, clientId: string): Promise<DeviceAuthorization> {
  const res = await request.post("/api/v1/oauth/device/authorize", { form: { client_id: clientId, scope: "tools:read usage:read" } });
  expect(res.status()).toBe(200);
  return (await res.json()) as DeviceAuthorization;
}

function poll(request: APIRequestContext, clientId: string, deviceCode: string) {
  return request.post("/api/v1/oauth/token", {
    form: { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: deviceCode, client_id: clientId },
  });
}

test.describe("device authorization in the dashboard", () => {
  test("the demo user approves a device code and the polling client gets tokens", async ({ page, request, baseURL }) => {
    const clientId = await registerDeviceClient();
    const device = await startDeviceFlow(request, clientId);
    expect(device.verification_uri).toBe(`${baseURL}/device`);
    expect(device.verification_uri_complete).toBe(`${baseURL}/device?user_code=${device.user_code}`);

    const pending = await poll(request, clientId, device.device_code);
    expect(pending.status()).toBe(400);
    expect((await pending.json()).error).toBe("authorization_pending");

    await signIn(page, DEMO_USER);
    const response = await page.goto(device.verification_uri_complete);
    // A page that grants access must not be framed by another site (clickjacking).
    expect(response?.headers()["x-frame-options"]).toBe("DENY");
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`${CLIENT_NAME} wants to access your account`);
    await expect(page.getByTestId("user-code")).toHaveText(device.user_code);
    await expect(page.getByTestId("requested-scopes")).toContainText("Read the usage history");
    await expect(page.getByRole("radio")).toBeChecked();
    await expect(page.getByTestId("signed-in-as")).toContainText(DEMO_USER.email);
    await saveScreenshot(page, "device-approve-desktop");
    await page.setViewportSize(PHONE_VIEWPORT);
    await saveScreenshot(page, "device-approve-phone");
    await page.setViewportSize(DESKTOP_VIEWPORT);

    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByRole("heading", { name: "Device connected" })).toBeVisible();
    await saveScreenshot(page, "device-approved");

    // The client keeps polling at its interval and now receives tokens.
    await page.waitForTimeout(device.interval * 1000);
    const granted = await poll(request, clientId, device.device_code);
    expect(granted.status()).toBe(200);
    const tokens = (await granted.json()) as { access_token: string; token_type: string; refresh_token?: string; scope: string };
    expect(tokens.token_type).toBe("Bearer");
    expect(tokens.scope).toBe("tools:read usage:read");
    expect(tokens.refresh_token).toBeTruthy();
    const verified = await request.post("/api/v1/auth/verify-token", { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(verified.status()).toBe(200);
    expect(((await verified.json()) as { data: { client_id: string } }).data.client_id).toBe(clientId);

    // The code is spent: the page no longer offers it.
    await page.goto(device.verification_uri_complete);
    await expect(page.getByRole("alert").filter({ hasText: "not valid or has expired" })).toBeVisible();
  });

  test("a signed-out person is sent to sign in and back, and can deny", async ({ page, request }) => {
    const clientId = await registerDeviceClient();
    const device = await startDeviceFlow(request, clientId);

    await page.goto(device.verification_uri_complete);
    await expect(page).toHaveURL(/\/login\?callbackUrl=/);
    await page.getByLabel("Email").fill(DEMO_USER.email);
    await page.getByLabel("Password").fill(DEMO_USER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("user-code")).toHaveText(device.user_code);

    await page.getByRole("button", { name: "Deny" }).click();
    await expect(page.getByRole("heading", { name: "Request denied" })).toBeVisible();
    await saveScreenshot(page, "device-denied");
    const denied = await poll(request, clientId, device.device_code);
    expect(denied.status()).toBe(400);
    expect((await denied.json()).error).toBe("access_denied");
  });

  test("the code can be typed by hand, in any case and without the dash; a wrong code is explained", async ({ page, request }) => {
    const clientId = await registerDeviceClient();
    const device = await startDeviceFlow(request, clientId);
    await signIn(page, DEMO_USER);
    await page.goto("/device");
    await expect(page.getByRole("heading", { name: "Connect a device", level: 1 })).toBeVisible();
    await page.getByLabel("Device code").fill("BBBB-BBBB");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "not valid or has expired" })).toBeVisible();
    await saveScreenshot(page, "device-code-wrong");

    await page.getByLabel("Device code").fill(device.user_code.replace("-", "").toLowerCase());
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByTestId("user-code")).toHaveText(device.user_code);
  });

  test("wrong codes sent straight to the decision are counted: after ten the right code is refused on the page and in the decision", async ({ page, context, request }) => {
    // A user of its own: the blocked user must not be the demo user other specs sign in as.
    const guesser = await seedUser({ label: "device-guesser" });
    const clientId = await registerDeviceClient();
    const device = await startDeviceFlow(request, clientId);
    await signIn(page, guesser);

    // A tab that shows the right code's decision before any guess: its Approve is sent while blocked.
    const early = await context.newPage();
    await early.goto(device.verification_uri_complete);
    await expect(early.getByTestId("user-code")).toHaveText(device.user_code);

    // The guesser keeps the decision form and rewrites its code, as a script posting to the action would.
    for (let i = 0; i < 10; i++) {
      await page.goto(device.verification_uri_complete);
      await page.locator('input[name="user_code"]').evaluate((input: HTMLInputElement, code) => (input.value = code), `ZZZZ-ZZ${"BCDFGHJKLM"[i]}Z`);
      await page.getByRole("button", { name: "Approve" }).click();
      await expect(page.getByRole("heading", { name: "This request can no longer be decided" })).toBeVisible();
    }

    await page.goto(device.verification_uri_complete);
    await expect(page.getByRole("alert").filter({ hasText: "Too many wrong codes were tried. Try again in 5 minutes." })).toBeVisible();
    await expect(page.getByTestId("user-code")).toHaveCount(0);
    await saveScreenshot(page, "device-throttled");

    await early.getByRole("button", { name: "Approve" }).click();
    await expect(early.getByRole("alert").filter({ hasText: "Too many wrong codes were tried." })).toBeVisible();
    const pending = await poll(request, clientId, device.device_code);
    expect((await pending.json()).error).toBe("authorization_pending");

    await context.addCookies([{ name: "tollgate-locale", value: "zh", url: device.verification_uri }]);
    await page.reload();
    await expect(page.getByRole("alert").filter({ hasText: "输错的代码过多，请5分钟后再试。" })).toBeVisible();
    await saveScreenshot(page, "device-throttled-zh");
  });
});

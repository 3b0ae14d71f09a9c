import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page, Response } from "@playwright/test";
import { adminCommand, canSeed, seedUser } from "./admin";
import { expect, saveScreenshot, signIn, test } from "./fixtures";
import { startServer } from "./server";

/**
 * The dashboard's defences: security headers on every page, the session cookie's attributes (Secure
 * behind HTTPS, on a server of this spec's own), no secret in a full run's log, roles in the
 * dashboard, and a tool whose name and description carry HTML/JS rendered as text.
 */

const DASHBOARD_PAGES = ["/", "/playground", "/console", "/usage", "/ledger", "/executions", "/keys", "/budgets", "/device"];

function expectSecurityHeaders(response: Response | null, where: string) {
  expect(response, where).not.toBeNull();
  const headers = response!.headers();
  const csp = headers["content-security-policy"] ?? "";
  for (const directive of ["default-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'"]) expect(csp, `${where}: CSP`).toContain(directive);
  expect(headers["x-content-type-options"], where).toBe("nosniff");
  expect(headers["referrer-policy"], where).toBe("same-origin");
  expect(headers["x-frame-options"], where).toBe("DENY");
}

/** Collects what the policy blocked and any page error: a policy that breaks the dashboard fails here. */
function watchForBreakage(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy|Refused to/.test(msg.text())) problems.push(msg.text());
  });
  page.on("pageerror", (err) => problems.push(err.message));
  return problems;
}

test.describe("security headers", () => {
  test("the login page and every dashboard page carry the CSP, nosniff, Referrer-Policy and no framing, and work under them", async ({ page }) => {
    const problems = watchForBreakage(page);
    expectSecurityHeaders(await page.goto("/login"), "/login");
    await signIn(page, canSeed() ? await seedUser({ label: "headers", credits: 10 }) : undefined);
    for (const p of DASHBOARD_PAGES) {
      expectSecurityHeaders(await page.goto(p), p);
      // Hydrated: the client-side navigation renders (it would not with blocked scripts).
      await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    }
    // Client-side navigation and the charts of Overview run under the policy.
    await page.goto("/playground");
    await page.getByRole("navigation", { name: "Main navigation" }).getByRole("link", { name: "Overview" }).click();
    await expect(page.getByTestId("balance-total-available")).toBeVisible();
    expect(problems).toEqual([]);
  });

  test("the session cookie is HttpOnly and SameSite=Lax", async ({ page }) => {
    await signIn(page, canSeed() ? await seedUser({ label: "cookie" }) : undefined);
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name.endsWith("next-auth.session-token"));
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax" });
    // Plain http here; the HTTPS case is the next test.
    expect(session?.secure).toBe(false);
    expect(await page.evaluate(() => document.cookie)).not.toContain("session-token");
  });
});

test.describe("behind HTTPS (PUBLIC_URL https://…)", () => {
  test("the session cookie is Secure, and the run's log holds no password, session, key, token or client secret", async () => {
    test.skip(!canSeed(), "starts a server of its own: needs the build, not E2E_BASE_URL");
    test.setTimeout(240_000);
    const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-secure-"));
    const logFile = path.join(logDir, "server.log");
    const server = await startServer(process.cwd(), { logFile, env: { PUBLIC_URL: "https://tollgate.test", LOG_LEVEL: "trace", SEED_DEMO: "false" } });
    const secrets: Record<string, string> = {};
    try {
      const admin = (argv: string[]) => adminCommand(argv, server.dataDir) as Promise<Record<string, string>>;
      const { account_id: accountId } = await admin(["accounts", "create", "--name", "https", "--credits", "10"]);
      const email = `https-${accountId}@example.test`;
      secrets.password = `pw-${crypto.randomBytes(12).toString("hex")}`;
      secrets.wrongPassword = `pw-${crypto.randomBytes(12).toString("hex")}`;
      await admin(["users", "create", "--account", accountId, "--email", email, "--password", secrets.password]);
      secrets.clientSecret = (await admin(["clients", "create", "--name", "runtime", "--type", "confidential", "--grant", "token_exchange", "--agent-runtime"])).client_secret;

      const csrf = await fetch(`${server.baseUrl}/api/auth/csrf`);
      secrets.csrfToken = ((await csrf.json()) as { csrfToken: string }).csrfToken;
      const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]);
      const signIn = (password: string) =>
        fetch(`${server.baseUrl}/api/auth/callback/credentials`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie.join("; ") },
          body: new URLSearchParams({ csrfToken: secrets.csrfToken, email, password, json: "true" }),
        });

      const refused = await signIn(secrets.wrongPassword);
      expect(refused.headers.getSetCookie().some((c) => c.includes("session-token"))).toBe(false);
      const accepted = await signIn(secrets.password);
      const setCookie = accepted.headers.getSetCookie().find((c) => c.startsWith("__Secure-next-auth.session-token="));
      expect(setCookie, accepted.headers.getSetCookie().join("\n")).toBeDefined();
      const attributes = setCookie!.split(";").map((a) => a.trim().toLowerCase());
      expect(attributes).toEqual(expect.arrayContaining(["httponly", "secure", "samesite=lax", "path=/"]));
      const session = setCookie!.split(";")[0];
      secrets.sessionToken = session.slice(session.indexOf("=") + 1);

      // The dashboard's API token, a key made with it, and Calls with the key.
      const token = await fetch(`${server.baseUrl}/api/dashboard/token`, { headers: { cookie: session } });
      expect(token.status).toBe(200);
      secrets.accessToken = ((await token.json()) as { access_token: string }).access_token;
      const auth = (credential: string) => ({ authorization: `Bearer ${credential}`, "content-type": "application/json" });
      const key = await fetch(`${server.baseUrl}/api/v1/auth/api-keys`, { method: "POST", headers: auth(secrets.accessToken), body: JSON.stringify({ name: "https" }) });
      secrets.apiKey = ((await key.json()) as { data: { api_key: string } }).data.api_key;
      for (let i = 0; i < 3; i++) {
        const call = await fetch(`${server.baseUrl}/api/v1/tools/execute`, {
          method: "POST",
          headers: auth(secrets.apiKey),
          body: JSON.stringify({ tool_id: "builtin.convert.temperature", parameters: { value: 100, from: "C", to: "F" } }),
        });
        expect(call.status).toBe(200);
      }
      expect((await fetch(`${server.baseUrl}/api/v1/auth/credits`, { headers: auth(`tg_${crypto.randomBytes(24).toString("base64url")}`) })).status).toBe(401);
    } finally {
      await server.stop();
    }
    const log = fs.readFileSync(logFile, "utf8");
    fs.rmSync(logDir, { recursive: true, force: true });
    expect(log).toContain('"path":"/api/v1/tools/execute"');
    for (const [what, secret] of Object.entries(secrets)) {
      expect(secret.length, what).toBeGreaterThanOrEqual(16);
      expect(log.includes(secret), `${what} in the server's log`).toBe(false);
    }
  });
});

test.describe("roles in the dashboard", () => {
  test("a member's dashboard token carries the member role and the usage page has no account switch; support's has one", async ({ page }) => {
    test.skip(!canSeed(), "seeds its own users");
    const member = await seedUser({ label: "member", role: "member" });
    await signIn(page, member);
    const token = ((await (await page.request.get("/api/dashboard/token")).json()) as { access_token: string }).access_token;
    const verified = await page.request.post("/api/v1/auth/verify-token", { headers: { Authorization: `Bearer ${token}` } });
    expect(((await verified.json()) as { data: { role: string } }).data.role).toBe("member");
    await page.goto("/usage");
    await expect(page.getByRole("heading", { name: "Usage", level: 1 })).toBeVisible();
    await expect(page.getByLabel("Account (support)")).toHaveCount(0);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login$/);

    await signIn(page, await seedUser({ label: "support", role: "support" }));
    await page.goto("/usage");
    // The router may keep a page it left mounted but hidden (React's Activity): count what is shown.
    await expect(page.getByLabel("Account (support)").filter({ visible: true })).toHaveCount(1);
  });
});

/** Nothing of the markup became an element, nothing ran. */
async function expectInert(page: Page, dialogs: string[]) {
  await expect(page.locator('img[src="x"], iframe, svg[onload], [onerror], [onmouseover], a[href^="javascript:"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(dialogs).toEqual([]);
}

test.describe("hostile catalog text", () => {
  test("a tool whose name and description carry HTML and script renders as text in the playground and console: no dialog, no element", async ({ page }) => {
    test.skip(!canSeed(), "imports a manifest through the admin channel");
    const suffix = crypto.randomBytes(4).toString("hex");
    const toolId = `e2e.hostile.${suffix}`;
    const name = `<img src=x onerror="window.__xss=1;alert(1)"> Quokka ${suffix}<script>alert(2)</script>`;
    const description = `<script>window.__xss=1;alert(document.cookie)</script><svg onload=alert(3)> A quokka marmalade tool, ${suffix}. <a href="javascript:alert(4)">click</a>`;
    const manifest = {
      providers: [
        {
          id: `e2e-hostile-${suffix}`,
          name: `<img src=x onerror=alert(5)> Provider`,
          description: "<iframe src=javascript:alert(6)></iframe>",
          transport: "none",
          tools: [
            {
              id: toolId,
              name,
              description,
              category: "<b onmouseover=alert(7)>hostile</b>",
              params: [{ name: "q", type: "string", required: true, description: "<img src=x onerror=alert(8)> the query" }],
              examples: { sample_parameters: { q: "<script>alert(9)</script>" } },
            },
          ],
        },
      ],
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-hostile-"));
    const file = path.join(dir, "manifest.json");
    fs.writeFileSync(file, JSON.stringify(manifest));
    try {
      await adminCommand(["providers", "import", "--file", file]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    const dialogs: string[] = [];
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await signIn(page, await seedUser({ label: "hostile", credits: 10 }));
    await page.goto("/playground");
    await page.getByRole("button", { name: "Create a playground key" }).click();
    await expect(page.getByTestId("key-picker-prefix")).toContainText("tg_");

    const card = page.locator(`[data-tool-id="${toolId}"]`);
    await expect(async () => {
      await page.getByRole("searchbox", { name: "Query" }).fill(`quokka marmalade ${suffix}`);
      await page.getByRole("button", { name: "Search" }).click();
      await expect(card).toBeVisible({ timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
    await card.getByRole("button", { name: "Schema & examples" }).click();
    await expect(card.getByTestId("inspect-details")).toBeVisible();
    await saveScreenshot(page, "playground-hostile-tool");
    await expectInert(page, dialogs);
    // Shown as the text it is.
    await expect(card).toContainText(`<img src=x onerror="window.__xss=1;alert(1)"> Quokka ${suffix}<script>alert(2)</script>`);
    await expect(card).toContainText("<script>window.__xss=1;alert(document.cookie)</script>");
    await expect(card.getByTestId("inspect-details")).toContainText("<img src=x onerror=alert(8)> the query");

    await page.goto(`/console?tool_id=${toolId}`);
    await expect(page.getByTestId("console-tool-name")).toHaveText(name);
    await expectInert(page, dialogs);
  });
});

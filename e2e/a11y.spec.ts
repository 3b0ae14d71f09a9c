import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { adminCommand, canSeed } from "./admin";
import { AXE_TAGS } from "./axe";
import { PHONE_VIEWPORT, expect, signIn, test } from "./fixtures";
import { seedActiveOwner, type ActiveOwner } from "./seeding";

/**
 * An axe scan (WCAG 2.0 and 2.1, A and AA) of every dashboard page, in English and Chinese, on a
 * desktop and a phone, as an owner and as support. Any serious or critical violation fails the
 * test, naming the page, the rule and the elements; the counts of every impact are printed per
 * page (and written to test-results/a11y-counts.md) so a reader sees what the scan found.
 */
test.skip(!canSeed(), "needs the server's admin channel to seed its own account");

const TAGS = AXE_TAGS;
const IMPACTS = ["critical", "serious", "moderate", "minor"] as const;
type Impact = (typeof IMPACTS)[number];
const FAILING: readonly Impact[] = ["critical", "serious"];

const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: PHONE_VIEWPORT } as const;
const LOCALES = { en: "en-US", zh: "zh-CN" } as const;
/** Seeded with every empty database next to the demo user (lib/seed/seed-demo.ts). */
const SUPPORT_USER = { email: "support@tollgate.local", password: "tollgate-support" } as const;
const REDIRECT = "http://127.0.0.1:9/e2e-a11y-callback";

interface Seeded {
  owner: ActiveOwner["owner"];
  executionId: string;
  runId: string;
  consentUrl: string;
  deviceClientId: string;
  invitationPath: string;
  month: string;
}
let seeded: Seeded | undefined;

interface PageScan {
  label: string;
  counts: Record<Impact, number>;
  nodes: number;
}

async function api(baseURL: string, pathname: string, init: RequestInit): Promise<Response> {
  return fetch(`${baseURL}${pathname}`, init);
}

/**
 * An owner with something on every page: Calls from a key and from an agent run's delegation
 * token, a budget, an OAuth client asking for consent and a device code waiting for approval.
 */
async function seed(baseURL: string): Promise<Seeded> {
  if (seeded) return seeded;
  const suffix = crypto.randomBytes(4).toString("hex");
  const { owner, executionId, runId } = await seedActiveOwner(baseURL, { label: "a11y", credits: 100, budgetZone: "UTC" });

  const consentClient = (await adminCommand(["clients", "create", "--name", "A11y Desktop App", "--type", "public", "--redirect-uri", REDIRECT, "--grant", "authorization_code"])) as {
    client_id: string;
  };
  const challenge = crypto.createHash("sha256").update(crypto.randomBytes(32).toString("base64url")).digest("base64url");
  const consentUrl = `/api/v1/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: consentClient.client_id,
    redirect_uri: REDIRECT,
    scope: "usage:read account:manage",
    state: suffix,
    code_challenge: challenge,
    code_challenge_method: "S256",
  })}`;

  // An invitation waiting: its page (opened signed out) and a pending row on Members.
  const { invitation_url: invitationUrl } = (await adminCommand(["members", "invite", "--account", owner.accountId, "--email", `e2e-a11y-invitee-${suffix}@example.test`])) as { invitation_url: string };

  const { client_id: deviceClientId } = (await adminCommand(["clients", "create", "--name", "A11y Agent CLI", "--type", "public", "--grant", "device_code"])) as { client_id: string };

  seeded = {
    owner,
    executionId,
    runId,
    consentUrl,
    deviceClientId,
    invitationPath: new URL(invitationUrl).pathname,
    month: new Date().toISOString().slice(0, 7),
  };
  return seeded;
}

/** A device code waiting for approval; one per test, as a code expires in minutes. */
async function deviceUserCode(baseURL: string, clientId: string): Promise<string> {
  const device = await api(baseURL, "/api/v1/oauth/device/authorize", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: clientId, scope: "tools:read usage:read" }),
  });
  expect(device.status).toBe(200);
  return ((await device.json()) as { user_code: string }).user_code;
}

/** Waits until the page has loaded its data: no placeholder announces it is busy any more. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState("networkidle");
  // The first Overview after a start is slow on a busy machine: wait longer than an assertion does.
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0, { timeout: 30_000 });
}

interface Target {
  name: string;
  path: string;
  /** What must be on the page before it is scanned. */
  ready?: (page: Page) => Promise<void>;
  /** A step after loading (a side panel, a dialog, the phone's menu opened), before the scan. */
  act?: (page: Page) => Promise<void>;
}

/** Opens the side panel of a table's first row (its Details button, the row's last) and waits for the panel. */
const openRowPanel = (rowTestId: string, panelTestId: string) => async (page: Page) => {
  await page.getByTestId(rowTestId).first().getByRole("button").last().click();
  await expect(page.getByTestId(panelTestId)).toBeVisible();
  await settle(page);
};

const h1 = (page: Page) => expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();

function ownerTargets(s: Seeded, userCode: string): Target[] {
  return [
    { name: "overview", path: "/", ready: h1 },
    { name: "playground", path: "/playground?q=compound+interest", ready: (p) => expect(p.getByTestId("result-card").first()).toBeVisible() },
    { name: "console", path: "/console?tool_id=builtin.finance.compound_interest", ready: (p) => expect(p.getByTestId("console-tool-name")).toBeVisible() },
    { name: "usage", path: "/usage", ready: (p) => expect(p.getByTestId("usage-row").first()).toBeVisible() },
    { name: "usage (event panel)", path: "/usage", ready: (p) => expect(p.getByTestId("usage-row").first()).toBeVisible(), act: openRowPanel("usage-row", "event-details") },
    { name: "ledger", path: "/ledger", ready: (p) => expect(p.getByTestId("ledger-row").first()).toBeVisible() },
    { name: "ledger (entry panel)", path: "/ledger", ready: (p) => expect(p.getByTestId("ledger-row").first()).toBeVisible(), act: openRowPanel("ledger-row", "entry-details") },
    { name: "executions (lookup)", path: `/executions?id=${s.executionId}`, ready: (p) => expect(p.getByTestId("verdict")).toBeVisible() },
    { name: "keys", path: "/keys", ready: (p) => expect(p.getByTestId("key-row").first()).toBeVisible() },
    {
      name: "keys (revoke dialog)",
      path: "/keys",
      ready: (p) => expect(p.getByTestId("key-row").first()).toBeVisible(),
      act: async (p) => {
        // The row's buttons that name the key: its last one is Revoke, in either language.
        await p.getByTestId("key-row").filter({ hasText: "research agent" }).getByRole("button", { name: /research agent/ }).last().click();
        await expect(p.getByTestId("revoke-dialog")).toBeVisible();
      },
    },
    { name: "budgets", path: "/budgets", ready: (p) => expect(p.getByTestId("budget-row").first()).toBeVisible() },
    { name: "spend", path: "/spend", ready: (p) => expect(p.getByTestId("spend-row").first()).toBeVisible() },
    { name: "statements", path: "/statements", ready: h1 },
    { name: "statement (month)", path: `/statements/${s.month}`, ready: (p) => expect(p.getByTestId("statement")).toBeVisible() },
    { name: "billing", path: "/billing", ready: (p) => expect(p.getByTestId("payments-empty")).toBeVisible() },
    { name: "runs", path: "/runs", ready: (p) => expect(p.getByTestId("runs-row").first()).toBeVisible() },
    { name: "run", path: `/runs/${encodeURIComponent(s.runId)}`, ready: h1 },
    { name: "activity", path: "/activity", ready: h1 },
    { name: "members", path: "/members", ready: (p) => expect(p.getByText("e2e-a11y-invitee-", { exact: false }).first()).toBeVisible() },
    { name: "security", path: "/security", ready: h1 },
    { name: "connections", path: "/connections", ready: (p) => expect(p.getByTestId("connections-empty")).toBeVisible() },
    { name: "connect (unknown provider)", path: "/connections/connect?provider=e2e-no-such-provider&scope=repo", ready: (p) => expect(p.getByTestId("connect-unknown-provider")).toBeVisible() },
    { name: "connect (another user's link)", path: "/connections/connect?provider=github&scope=repo&for=usr_e2e_someone_else", ready: (p) => expect(p.getByTestId("connect-other-user")).toBeVisible() },
    { name: "oauth consent", path: s.consentUrl, ready: (p) => expect(p.getByTestId("requested-scopes")).toBeVisible() },
    { name: "device (code form)", path: "/device", ready: h1 },
    { name: "device (approve)", path: `/device?user_code=${userCode}`, ready: (p) => expect(p.getByTestId("user-code")).toBeVisible() },
  ];
}

function supportTargets(s: Seeded): Target[] {
  const inView = (p: Page) => expect(p.getByTestId("account-in-view")).toContainText(s.owner.email);
  return [
    { name: "support home", path: "/", ready: h1 },
    {
      name: "executions (customer's lookup)",
      path: `/executions?id=${s.executionId}&account_id=${s.owner.accountId}`,
      ready: async (p) => {
        await inView(p);
        await expect(p.getByTestId("lookup-account")).toContainText(s.owner.email);
      },
    },
    { name: "connections (read only)", path: "/connections", ready: (p) => expect(p.getByTestId("connections-read-only")).toBeVisible() },
    { name: "ledger (customer's)", path: `/ledger?account_id=${s.owner.accountId}`, ready: async (p) => {
      await inView(p);
      await expect(p.getByTestId("ledger-row").first()).toBeVisible();
    } },
  ];
}

/** The phone's navigation panel, opened from the top bar. */
const menuTarget: Target = {
  name: "navigation menu (open)",
  path: "/",
  ready: h1,
  act: async (page) => {
    await page.locator("header button[aria-controls]").click();
    await expect(page.locator("header nav")).toBeVisible();
  },
};

interface Finding {
  page: string;
  rule: string;
  impact: string;
  help: string;
  targets: string[];
  detail: string;
}

async function scan(page: Page, context: string, target: Target, findings: Finding[], scans: PageScan[]): Promise<void> {
  const label = `${context} ${target.name}`;
  await test.step(label, async () => {
    await page.goto(target.path);
    await settle(page);
    if (target.ready) await target.ready(page);
    if (target.act) await target.act(page);
    // Not a WCAG rule axe runs under these tags, but the issue's: every page says what it is in one h1.
    const headings = await page.locator("h1").count();
    if (headings !== 1) findings.push({ page: label, rule: "one-page-heading", impact: "required here", help: `The page has ${headings} level-1 headings, not one`, targets: ["h1"], detail: "" });
    const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
    const counts = { critical: 0, serious: 0, moderate: 0, minor: 0 } as Record<Impact, number>;
    let nodes = 0;
    for (const v of violations) {
      const impact = (v.impact ?? "minor") as Impact;
      counts[impact] += 1;
      nodes += v.nodes.length;
      if (!FAILING.includes(impact)) continue;
      for (const node of v.nodes) {
        // color-contrast says which colours and what ratio it measured.
        const data = node.any.find((check) => check.data)?.data as { fgColor?: string; bgColor?: string; contrastRatio?: number; fontSize?: string } | undefined;
        const detail = data?.contrastRatio ? `${data.fgColor} on ${data.bgColor} = ${data.contrastRatio}:1 at ${data.fontSize}` : (node.failureSummary ?? "").split("\n").slice(1, 2).join("").trim();
        findings.push({ page: `${label} (${page.url().replace(/^https?:\/\/[^/]+/, "")})`, rule: v.id, impact, help: v.help, targets: node.target.map(String), detail });
      }
    }
    scans.push({ label, counts, nodes });
  });
}

function report(findings: Finding[]): string {
  return findings.map((f) => `- ${f.page}\n    ${f.rule} [${f.impact}] ${f.help}\n    at ${f.targets.join(" > ")}\n    ${f.detail}`).join("\n");
}

/**
 * Prints one context's counts and adds them to test-results/a11y-counts.md (a failed test restarts
 * the worker, so the file, not module state, gathers the whole run).
 */
function printCounts(scans: PageScan[]): void {
  const width = Math.max(52, ...scans.map((s) => s.label.length));
  const header = `${"page".padEnd(width)} | critical | serious | moderate | minor | elements`;
  const rows = scans.map(
    (s) => `${s.label.padEnd(width)} | ${String(s.counts.critical).padStart(8)} | ${String(s.counts.serious).padStart(7)} | ${String(s.counts.moderate).padStart(8)} | ${String(s.counts.minor).padStart(5)} | ${String(s.nodes).padStart(8)}`,
  );
  console.log([header, ...rows].join("\n"));
  const file = path.join("test-results", "a11y-counts.md");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, `axe (${TAGS.join(", ")}): violated rules per page by impact, and the elements they flag\n\n${header}\n${"-".repeat(header.length)}\n`);
  fs.appendFileSync(file, `${rows.join("\n")}\n`);
}

for (const [localeName, locale] of Object.entries(LOCALES)) {
  for (const [viewportName, viewport] of Object.entries(VIEWPORTS)) {
    test.describe(`${localeName}, ${viewportName}`, () => {
      test.use({ locale, viewport });

      test(`every page an owner opens has no serious or critical axe violation (${localeName}, ${viewportName})`, async ({ page, baseURL }) => {
        test.setTimeout(480_000);
        const s = await seed(baseURL!);
        // The Playground and Console call with an API key kept in this browser for the user.
        await page.addInitScript(
          ([storageKey, value]) => window.localStorage.setItem(storageKey, value),
          [`tollgate.playground-key.${s.owner.userId}.${s.owner.accountId}`, JSON.stringify({ apiKey: s.owner.apiKey, prefix: s.owner.apiKey.slice(0, 11), name: "research agent", apiKeyId: s.owner.apiKeyId, savedAt: new Date().toISOString() })],
        );
        const context = `owner/${localeName}/${viewportName}`;
        const findings: Finding[] = [];
        const scans: PageScan[] = [];
        await scan(page, context, { name: "login", path: "/login", ready: h1 }, findings, scans);
        await scan(page, context, { name: "invitation", path: s.invitationPath, ready: h1 }, findings, scans);
        await signIn(page, s.owner);
        const userCode = await deviceUserCode(baseURL!, s.deviceClientId);
        for (const target of ownerTargets(s, userCode)) await scan(page, context, target, findings, scans);
        if (viewportName === "phone") await scan(page, context, menuTarget, findings, scans);
        printCounts(scans);
        expect(findings.length, `serious or critical axe violations:\n${report(findings)}`).toBe(0);
      });

      test(`support's home and a customer's Executions lookup have no serious or critical axe violation (${localeName}, ${viewportName})`, async ({ page, baseURL }) => {
        test.setTimeout(180_000);
        const s = await seed(baseURL!);
        const context = `support/${localeName}/${viewportName}`;
        const findings: Finding[] = [];
        const scans: PageScan[] = [];
        await signIn(page, SUPPORT_USER);
        for (const target of supportTargets(s)) await scan(page, context, target, findings, scans);
        printCounts(scans);
        expect(findings.length, `serious or critical axe violations:\n${report(findings)}`).toBe(0);
      });
    });
  }
}

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startServer, type RunningServer } from "./server";
import type { Page } from "@playwright/test";
import { SCREENSHOT_DIR, expect, screenshotBoth, test } from "./fixtures";
import { openDatabase } from "../lib/db/open";
import { migrateDatabase } from "../lib/db/migrate";
import { createAccount } from "../lib/accounts/create-account";
import { createUser } from "../lib/accounts/create-user";
import { ledgerRowAt, writePastEvents } from "../lib/audit/testing-history";

/**
 * The printable monthly statement. A month's history can only be written at past instants
 * before the server opens the embedded database, so this spec prepares its own DATA_DIR (a past
 * month with grants of two kinds, Calls on several tools, a priced search, a model call, a
 * refund and an expiry) and starts its own server on it. The month has ended, so the first read
 * seals it and stores the statement with its hash.
 */
const DAY = 24 * 3_600_000;
const now = new Date();
const S = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1);
const MONTH = new Date(S).toISOString().slice(0, 7);
const OWNER = { email: "finance@acme.example", password: "statement-e2e-pw" };
const at = (days: number, hours = 0) => new Date(S + days * DAY + hours * 3_600_000);

let server: RunningServer;
let dataDir: string;
let accountId: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-e2e-statements-"));
  const database = await openDatabase({ kind: "pglite", dataDir: path.join(dataDir, "pgdata") });
  try {
    await migrateDatabase(database);
    const db = database.db;
    ({ account_id: accountId } = await createAccount(db, { name: "Acme Research Ltd" }));
    await createUser(db, { accountId, email: OWNER.email, password: OWNER.password, role: "owner" });
    const a = accountId;
    // The month before: 200 paid and a 50 bonus, 12.5 spent.
    await ledgerRowAt(db, a, { at: at(-20), entryType: "grant_payment_recharge", amount: "200", kind: "paid" });
    await ledgerRowAt(db, a, { at: at(-19), entryType: "grant_welcome_bonus", amount: "50", kind: "bonus" });
    await writePastEvents(db, a, [{ at: at(-10), amount: "12.5", toolId: "builtin.finance.compound_interest" }]);
    // The month: 100 paid and a 20 reward in; Calls on four tools, a search, a model call; a refund; an expiry.
    await ledgerRowAt(db, a, { at: at(1, 9), entryType: "grant_payment_recharge", amount: "100", kind: "paid" });
    await ledgerRowAt(db, a, { at: at(2, 10), entryType: "grant_invitation_reward", amount: "20", kind: "reward" });
    const calls: [number, string, string][] = [
      [3, "builtin.finance.compound_interest", "4"],
      [4, "builtin.convert.temperature", "1.5"],
      [5, "builtin.convert.length", "0.75"],
      [6, "builtin.finance.compound_interest", "4"],
      [8, "builtin.convert.temperature", "1.5"],
    ];
    const written = [];
    for (const [day, toolId, amount] of calls) written.push(...(await writePastEvents(db, a, [{ at: at(day, 14), amount, toolId }])));
    await ledgerRowAt(db, a, { at: at(9, 11), entryType: "consume_tool_execute", amount: "-6", split: { bonus: "6" }, metadata: { tool_id: "builtin.finance.compound_interest" } });
    await writePastEvents(db, a, [{ at: at(11, 8), eventType: "search", amount: "0.25" }]);
    await writePastEvents(db, a, [{ at: at(12, 16), eventType: "model_call", amount: "2.4", model: "gpt-e2e" }]);
    await ledgerRowAt(db, a, { at: at(14, 9), entryType: "refund_tool_execute", amount: "4", split: { paid: "-4" }, executionId: written[3].executionId });
    await ledgerRowAt(db, a, { at: at(20, 0), entryType: "expire_welcome_bonus", amount: "-10", kind: "bonus" });
  } finally {
    await database.close();
  }
  const logFile = path.join(dataDir, "server.log");
  server = await startServer(process.cwd(), { logFile, env: { DATA_DIR: dataDir } });
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** This spec's server has its own owner (no demo account): the shared `signIn` targets the global server. */
async function signInOwner(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/login`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
}

function pdfPages(file: string): number {
  try {
    const info = execFileSync("pdfinfo", [file], { encoding: "utf8" });
    return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
  } catch {
    return (fs.readFileSync(file, "latin1").match(/\/Type\s*\/Page[^s]/g) ?? []).length;
  }
}

/** The printed text, laid out as on the page (poppler-utils: .ci/run installs it). */
function pdfText(file: string): string {
  return execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" });
}

/** "2026-11-28 09:41 (UTC)": an instant with its year and its zone. */
const zonedAt = (zone: string) => new RegExp(`\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} \\(${zone.replace("/", "\\/")}\\)`);

test("a past month's statement: every figure, reconciled, final with its hash; prints on one A4 page", async ({ page }) => {
  test.setTimeout(120_000);
  await signInOwner(page);

  await page.goto(`${server.baseUrl}/ledger`);
  await page.getByTestId("ledger-statements-link").click();
  await expect(page).toHaveURL(/\/statements$/);
  const row = page.getByTestId(`statement-row-${MONTH}`);
  await expect(row).toContainText("Final");
  await screenshotBoth(page, "statements-list");
  await row.getByRole("link").click();

  const doc = page.getByTestId("statement");
  await expect(doc).toBeVisible();
  await expect(page.getByTestId("statement-account")).toContainText("Acme Research Ltd");
  await expect(page.getByTestId("statement-tz-shown")).toHaveText("UTC");
  await expect(page.getByTestId("statement-period")).toContainText(`${MONTH}-01 – `);
  await expect(page.getByTestId("statement-bounds")).toContainText(`${MONTH}-01 00:00`);
  await expect(page.getByTestId("statement-finalized")).toHaveText(zonedAt("UTC"));
  await expect(page.getByTestId("statement-generated-at")).toHaveText(zonedAt("UTC"));
  await expect(page.getByTestId("statement-opening-paid")).toHaveText("187.5");
  await expect(page.getByTestId("statement-opening-bonus")).toHaveText("50");
  await expect(page.getByTestId("statement-opening-total")).toHaveText("237.5");
  await expect(page.getByTestId("statement-grants-total")).toHaveText("120");
  await expect(page.getByTestId("statement-consumption-total")).toHaveText("20.4");
  await expect(page.getByTestId("statement-refunds-total")).toHaveText("4");
  await expect(page.getByTestId("statement-expiries-total")).toHaveText("10");
  await expect(page.getByTestId("statement-closing-paid")).toHaveText("277.1");
  await expect(page.getByTestId("statement-closing-bonus")).toHaveText("34");
  await expect(page.getByTestId("statement-closing-reward")).toHaveText("20");
  await expect(page.getByTestId("statement-closing-total")).toHaveText("331.1");
  await expect(page.getByTestId("statement-difference")).toHaveText("0");
  await expect(page.getByTestId("statement-verdict")).toContainText("Reconciled");
  await expect(page.getByTestId("statement-consumption")).toContainText("Compound interest");
  const hash = (await page.getByTestId("statement-hash").textContent()) ?? "";
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  // The page shows the stored hash the API serves.
  const api = await page.evaluate(async (month) => {
    const token = (await (await fetch("/api/dashboard/token")).json()).access_token as string;
    return (await (await fetch(`/api/v1/auth/credits/statements/${month}`, { headers: { Authorization: `Bearer ${token}` } })).json()).data.content_hash as string;
  }, MONTH);
  expect(api).toBe(hash);

  await screenshotBoth(page, "statement");

  // page.pdf prints with the print stylesheet: the shell, the controls and the buttons are hidden.
  await page.emulateMedia({ media: "print" });
  await expect(page.getByTestId("statement-print")).toBeHidden();
  await expect(page.getByRole("link", { name: "All statements" })).toBeHidden();
  await expect(page.getByTestId("statement-generated-at")).toBeVisible();
  await page.setViewportSize({ width: 794, height: 1123 });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, "statement-print-media.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ media: null });
  const pdf = test.info().outputPath("statement.pdf");
  await page.pdf({ path: pdf, format: "A4", printBackground: true });
  expect(pdfPages(pdf)).toBe(1);
  // The printed page: its number in the margin, the generated-at time with its zone, and ids on one line each.
  const printed = pdfText(pdf);
  expect(printed).toMatch(/\b1\s*\/\s*1\b/);
  expect(printed).toContain(`${MONTH} · ${accountId}`);
  expect(printed).toMatch(new RegExp(`Generated[\\s\\S]*${zonedAt("UTC").source}`));
  const idLines = printed.split("\n").filter((line) => line.includes(accountId));
  expect(idLines.length, "the account id is printed whole, on its own lines").toBeGreaterThanOrEqual(2);
  expect(printed).toContain(hash);
  fs.copyFileSync(pdf, path.join(SCREENSHOT_DIR, "statement.pdf"));
  try {
    // Beside the PDF, to be looked at (test-results/, not the work tree).
    execFileSync("pdftoppm", ["-png", "-r", "80", "-singlefile", pdf, path.join(SCREENSHOT_DIR, "statement-printed")]);
  } catch {
    test.info().annotations.push({ type: "note", description: "pdftoppm is not installed: no PNG of the printed page" });
  }

  await page.getByRole("button", { name: "中文" }).click();
  await expect(page.getByTestId("statement-verdict")).toContainText("已平衡");
  await expect(doc).toContainText("积分对账单");
  await screenshotBoth(page, "statement-zh");
});

test.describe("in a browser in Shanghai", () => {
  test.use({ timezoneId: "Asia/Shanghai" });

  test("Statements take the page's zone like every page: Shanghai's months by default, UTC's by the switch, each final with its own hash", async ({ page }) => {
    test.setTimeout(120_000);
    await signInOwner(page);
    await page.goto(`${server.baseUrl}/statements`);
    await expect(page.getByTestId("tz-current")).toHaveText("Asia/Shanghai");
    await expect(page.getByTestId("statement-zone-note")).toContainText("midnight to midnight in Asia/Shanghai");
    const row = page.getByTestId(`statement-row-${MONTH}`);
    await expect(row).toContainText("Final");
    await expect(page.getByRole("columnheader", { name: "Period (Asia/Shanghai)" })).toBeVisible();
    await row.getByRole("link").click();

    // Shanghai's month starts 8 hours before UTC's; every row of this month lies well inside both.
    await expect(page.getByTestId("statement-tz-shown")).toHaveText("Asia/Shanghai");
    await expect(page.getByTestId("statement-bounds")).toContainText(`${MONTH}-01 00:00`);
    await expect(page.getByTestId("statement-bounds")).toContainText("Asia/Shanghai");
    await expect(page.getByTestId("statement-generated-at")).toHaveText(zonedAt("Asia/Shanghai"));
    await expect(page.getByTestId("statement-closing-total")).toHaveText("331.1");
    const shanghai = (await page.getByTestId("statement-hash").textContent()) ?? "";
    expect(shanghai).toMatch(/^[0-9a-f]{64}$/);
    const stored = await page.evaluate(async (month) => {
      const token = (await (await fetch("/api/dashboard/token")).json()).access_token as string;
      const read = async (tz: string) => (await (await fetch(`/api/v1/auth/credits/statements/${month}?tz=${tz}`, { headers: { Authorization: `Bearer ${token}` } })).json()).data.content_hash as string;
      return { shanghai: await read("Asia/Shanghai"), utc: await read("UTC") };
    }, MONTH);
    expect(stored.shanghai).toBe(shanghai);
    expect(stored.utc).not.toBe(shanghai);

    await page.getByTestId("tz-switch").getByRole("button", { name: "UTC" }).click();
    await expect(page).toHaveURL(/tz=UTC/);
    await expect(page.getByTestId("statement-tz-shown")).toHaveText("UTC");
    await expect(page.getByTestId("statement-hash")).toHaveText(stored.utc);
    await expect(page.getByTestId("statement-generated-at")).toHaveText(zonedAt("UTC"));
    // Back to the list in the zone chosen.
    await page.getByRole("link", { name: "All statements" }).click();
    await expect(page).toHaveURL(/\/statements\?tz=UTC$/);
    await expect(page.getByRole("columnheader", { name: "Period (UTC)" })).toBeVisible();
  });
});

test("another account's statement is refused; a month that has not started is not found", async ({ page }) => {
  await signInOwner(page);
  const statuses = await page.evaluate(async () => {
    const token = (await (await fetch("/api/dashboard/token")).json()).access_token as string;
    const get = async (p: string) => (await fetch(`/api/v1${p}`, { headers: { Authorization: `Bearer ${token}` } })).status;
    return [await get("/auth/credits/statements?account_id=acc_someone_else"), await get(`/auth/credits/statements/${new Date().getUTCFullYear() + 1}-01`)];
  });
  expect(statuses).toEqual([403, 404]);
});

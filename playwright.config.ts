import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests in Debian's chromium against the production server (`node dist/server.mjs`)
 * with a fresh embedded database; e2e/global-setup.ts builds when stale and starts it. Set
 * E2E_BASE_URL to run against a server that is already running instead.
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results",
  globalSetup: "./e2e/global-setup.ts",
  // Two workers share the one server: every spec seeds accounts of its own, and those that restart,
  // throttle or reconfigure a server start their own. The login throttle's minutes of waiting and
  // the other specs' work then overlap (14.5 min of tests in 10.8 on two cores).
  workers: 2,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    browserName: "chromium",
    viewport: { width: 1280, height: 800 },
    locale: "en-US",
    timezoneId: "UTC",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium" }],
});

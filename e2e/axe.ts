import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

/** The WCAG levels every scan checks: 2.0 and 2.1, A and AA. */
export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * Scans the page as it is now (a dialog open, an error shown) and fails naming every serious or
 * critical violation: for the states e2e/a11y.spec.ts's page tour does not reach.
 */
export async function expectNoSeriousViolations(page: Page, label: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  const serious = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} [${v.impact}] ${v.help} at ${n.target.map(String).join(" > ")}`));
  expect(serious, `${label}: serious or critical axe violations`).toEqual([]);
}

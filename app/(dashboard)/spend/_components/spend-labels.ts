import { chargeOutcomeColors, isChargeOutcome } from "@/lib/dashboard/audit-vocab";
import type { Translate } from "@/lib/dashboard/i18n";
import type { Breakdown, BreakdownGroup, SpendDimension } from "@/lib/dashboard/spend";

/** Ten distinguishable series colours (Tailwind 500/600s); "other" is always grey. */
const palette = ["#4f46e5", "#0ea5e9", "#10b981", "#f59e0b", "#ec4899", "#8b5cf6", "#14b8a6", "#f97316", "#84cc16", "#64748b"];
export const OTHER_COLOR = "#d4d4d8";

export function groupColor(group: BreakdownGroup, index: number, dimension: SpendDimension): string {
  if (group.other) return OTHER_COLOR;
  const value = group.key[dimension];
  if (dimension === "charge_outcome" && isChargeOutcome(value)) return chargeOutcomeColors[value];
  return palette[index % palette.length];
}

/** A dimension's name inside a sentence: "by tool", but "by API key" and "by OAuth client" (acronyms keep their case). */
export function dimensionInSentence(d: SpendDimension, t: Translate): string {
  const label = t(`spend.dim.${d}`);
  return /^\p{Lu}\p{Ll}/u.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label;
}

/** A group's name in the chosen language: the API's label, a translated vocabulary value, "none" or "other". */
export function groupLabel(group: BreakdownGroup, data: Breakdown, dimension: SpendDimension, t: Translate): string {
  if (group.other) return t("spend.other", { count: Math.max(0, data.group_count - data.limit) });
  const value = group.key[dimension];
  if (value === null || value === undefined) return t(`spend.none.${dimension}`);
  if (dimension === "channel" && (value === "api" || value === "mcp")) return t(`channel.${value}`);
  if (dimension === "charge_outcome" && isChargeOutcome(value)) return t(`outcome.${value}`);
  return group.label[dimension] ?? value;
}

/** A stable id for a group's row and series. */
export function groupId(group: BreakdownGroup, dimension: SpendDimension): string {
  if (group.other) return "other";
  const value = group.key[dimension];
  return value === null || value === undefined ? "none" : `k:${value}`;
}

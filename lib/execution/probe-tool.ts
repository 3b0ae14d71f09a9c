import type { Db } from "../db/types";
import { findTool, TOOL_ID_PATTERN } from "../catalog/get-tool";
import { quoteCall } from "../billing/quote";
import { creditsToNumber } from "../money";
import type { ValidationIssue } from "../errors";
import { validateParameters, withCurrentSchema, withDefaults } from "./validate-parameters";

export const probeChecks = ["schema", "quote", "coverage", "sample"] as const;
export type ProbeCheck = (typeof probeChecks)[number];

export type ProbeResult =
  | { kind: "ok"; body: ProbeResponse }
  | { kind: "invalid"; message: string }
  | { kind: "not_found"; message: string };

export interface ProbeResponse {
  tool_id: string;
  checks: ProbeCheck[];
  schema?: { valid: boolean; details: ValidationIssue[] };
  quote?: { estimate_credits: number; currency: "credits"; exact: boolean; basis: string };
  coverage?: { verdict: "unknown"; reason: string };
  sample?: { verdict: "unknown"; reason: string };
  executed: false;
  charged: false;
}

const UNKNOWN_REASON = "Not assessed: Probe never contacts the provider (live_budget=none)";

/**
 * Probe: validates parameters and quotes the price from the tool's billing_rule. It reads the
 * catalog only: it never executes the tool, never reserves or charges, and writes nothing.
 */
export async function probeTool(db: Db, input: { toolId: string; parameters: Record<string, unknown>; checks?: ProbeCheck[]; liveBudget?: string }): Promise<ProbeResult> {
  if (input.liveBudget !== undefined && input.liveBudget !== "none") {
    return { kind: "invalid", message: `live_budget "${input.liveBudget}" is not offered: Probe validates only; use live_budget=none` };
  }
  if (!TOOL_ID_PATTERN.test(input.toolId)) return { kind: "invalid", message: `Malformed tool_id "${input.toolId.slice(0, 100)}": use the tool_id exactly as Discover returned it` };
  const found = await findTool(db, input.toolId);
  if (!found || found.status !== "active") return { kind: "not_found", message: `Capability ${input.toolId} not found (unknown or retired): run Discover again` };
  const tool = await withCurrentSchema(found);
  const checks = input.checks?.length ? [...new Set(input.checks)] : (["schema", "quote"] as ProbeCheck[]);
  const body: ProbeResponse = { tool_id: tool.id, checks, executed: false, charged: false };
  if (checks.includes("schema")) {
    const details = validateParameters(tool, input.parameters);
    body.schema = { valid: details.length === 0, details };
  }
  if (checks.includes("quote")) {
    const quote = quoteCall(tool.billingRule, tool.params, withDefaults(tool, input.parameters));
    body.quote = { estimate_credits: creditsToNumber(quote.estimateCredits), currency: "credits", exact: quote.exact, basis: quote.basis };
  }
  if (checks.includes("coverage")) body.coverage = { verdict: "unknown", reason: UNKNOWN_REASON };
  if (checks.includes("sample")) body.sample = { verdict: "unknown", reason: UNKNOWN_REASON };
  return { kind: "ok", body };
}

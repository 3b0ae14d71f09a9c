import type { AuthContext } from "../auth/auth-context";
import type { Db } from "../db/types";
import { findTool, TOOL_ID_PATTERN } from "../catalog/get-tool";
import { quoteCall } from "../billing/quote";
import { listBudgets, type BudgetView } from "../billing/budgets";
import type { Clock } from "../clock";
import { credits, creditsToNumber } from "../money";
import type { ValidationIssue } from "../errors";
import { validateParameters, withCurrentSchema, withDefaults } from "./validate-parameters";
import { accountRegion, regionAllows } from "../accounts/region";
import { callAccess, type ConnectionSubject } from "../connections/call-access";
import type { ToolRecord } from "../catalog/get-tool";

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
  quote?: { estimate_credits: number; currency: "credits"; exact: boolean; basis: string; budget?: BudgetHeadroom | null };
  coverage?: { verdict: "unknown"; reason: string };
  sample?: { verdict: "unknown"; reason: string };
  readiness?: Readiness;
  executed: false;
  charged: false;
}

/** The tightest budget that would count the Call (extension): its headroom, and whether the quote exceeds it. */
export interface BudgetHeadroom {
  budget_id: string;
  scope: BudgetView["scope"];
  scope_id: string | null;
  scope_name: string | null;
  period: BudgetView["period"];
  time_zone: string;
  limit_credits: number;
  remaining_credits: number;
  resets_at: string | null;
  /** The quote is more than the budget has left: a Call now would be refused (402 billing.budget_exceeded). */
  would_refuse: boolean;
}

/** Who would pay for the Call: the budgets of the account, this key and this OAuth client apply. */
export interface Spender {
  accountId: string;
  apiKeyId: string | null;
  clientId: string | null;
}

/** Whether a Call by this caller would be refused before anything is sent (extension). */
export interface Readiness {
  callable: boolean;
  reason_code: "oauth_signin_required" | "region_restricted" | null;
  message: string | null;
  signin_url?: string;
  provider_id?: string;
  scopes?: string[];
  regions?: string[];
}

/** Whose connections a Call by this credential would use. */
export function subjectOf(auth: AuthContext): ConnectionSubject {
  return auth.kind === "api_key" ? { accountId: auth.accountId, userId: null, apiKeyId: auth.apiKeyId } : { accountId: auth.accountId, userId: auth.userId, apiKeyId: null };
}

/** The spender of a request's credential: an API key, or a user or delegation token (with its OAuth client). */
export function spenderOf(auth: AuthContext): Spender {
  if (auth.kind === "api_key") return { accountId: auth.accountId, apiKeyId: auth.apiKeyId, clientId: null };
  return { accountId: auth.accountId, apiKeyId: null, clientId: auth.kind === "delegation" ? (auth.claims.client_id ?? null) : null };
}

/**
 * What a Call would be refused for before execution (region, the caller's connection), read
 * without side effects: a token that is due for refresh counts as usable, as a Call would refresh it.
 */
async function callReadiness(db: Db, subject: ConnectionSubject, tool: ToolRecord): Promise<Readiness | undefined> {
  if (tool.regions) {
    const region = await accountRegion(db, subject.accountId);
    if (!regionAllows(tool.regions, region)) {
      return { callable: false, reason_code: "region_restricted", message: `Capability unavailable in the current region: ${tool.id} may be called from ${tool.regions.join(", ")}`, regions: tool.regions };
    }
  }
  const access = await callAccess(db, subject, tool.target, { refresh: false });
  if (access.kind === "signin") return { callable: false, reason_code: "oauth_signin_required", message: access.message, signin_url: access.signinUrl, provider_id: access.providerId, scopes: access.scopes };
  if (access.kind === "connection" || tool.regions) return { callable: true, reason_code: null, message: null };
  return undefined;
}

const UNKNOWN_REASON = "Not assessed: Probe never contacts the provider (live_budget=none)";

/**
 * Probe: validates parameters and quotes the price from the tool's billing_rule. It reads the
 * catalog only: it never executes the tool, never reserves or charges, and writes nothing.
 */
export async function probeTool(
  db: Db,
  input: { toolId: string; parameters: Record<string, unknown>; checks?: ProbeCheck[]; liveBudget?: string; spender?: Spender; subject?: ConnectionSubject; clock?: Clock },
): Promise<ProbeResult> {
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
    const estimate = creditsToNumber(quote.estimateCredits);
    body.quote = { estimate_credits: estimate, currency: "credits", exact: quote.exact, basis: quote.basis };
    if (input.spender) body.quote.budget = await tightestBudget(db, input.spender, estimate, input.clock);
  }
  if (input.subject) {
    const readiness = await callReadiness(db, input.subject, tool);
    if (readiness) body.readiness = readiness;
  }
  if (checks.includes("coverage")) body.coverage = { verdict: "unknown", reason: UNKNOWN_REASON };
  if (checks.includes("sample")) body.sample = { verdict: "unknown", reason: UNKNOWN_REASON };
  return { kind: "ok", body };
}

/** The budget with the least left among those that would count a Call by `spender`; null when none applies. */
async function tightestBudget(db: Db, spender: Spender, estimate: number, clock?: Clock): Promise<BudgetHeadroom | null> {
  const applies = (b: BudgetView) =>
    b.scope === "account" || (b.scope === "api_key" && b.scope_id === spender.apiKeyId) || (b.scope === "oauth_client" && b.scope_id === spender.clientId);
  // listBudgets orders the account's budgets tightest first.
  const tightest = (await listBudgets(db, spender.accountId, clock)).find(applies);
  if (!tightest) return null;
  return {
    budget_id: tightest.budget_id,
    scope: tightest.scope,
    scope_id: tightest.scope_id,
    scope_name: tightest.scope_name,
    period: tightest.period,
    time_zone: tightest.time_zone,
    limit_credits: tightest.limit_credits,
    remaining_credits: tightest.remaining_credits,
    resets_at: tightest.resets_at,
    would_refuse: credits(String(estimate)).gt(String(tightest.remaining_credits)),
  };
}

import { and, eq, sql } from "drizzle-orm";
import { env } from "../env";
import { executions, type UsageChannel } from "../db/schema";
import type { Db } from "../db/types";
import { findTool, TOOL_ID_PATTERN, type ToolRecord } from "../catalog/get-tool";
import { quoteCall, settleAmount, type Quote } from "../billing/quote";
import { deriveChargeOutcome } from "../billing/charge-outcome";
import { adapterFor, type ProviderOutcome, type ReasonCode } from "../providers";
import { isSuccessful } from "../providers/types";
import type { UsageEventInput } from "../audit/usage-event";
import type { ValidationIssue } from "../errors";
import { newId, newUuid } from "../ids";
import { credits, creditsPositive, creditsText, creditsToNumber } from "../money";
import { cachedOutcome, hashOf, storeOutcome } from "./result-cache";
import { ProjectionError, parseRespondWith, type RespondWith } from "./respond-with";
import { shapeResult, type ShapedResult } from "./shape-result";
import { recordCall, reserveCall, settleReservedCall, type Charge, type SettleOutcome } from "./settle";
import type { BudgetRefusal } from "../billing/budget-sql";
import type { CallPhase } from "./call-phases";
import { storedParameters } from "./stored-parameters";
import { validateParameters, withCurrentSchema, withDefaults } from "./validate-parameters";
import { msSince } from "../timing";
import { systemClock, type Clock } from "../clock";
import { budgetRefusalMessage, withScopeName } from "../billing/budgets";
import { notify } from "../alerts/notify-sql";
import { autoTopupAfterCharge } from "../payments/auto-topup";
import { countCall, countCreditsReserved, countCreditsSettled } from "../observability/metrics";
import { callAccess, type Signin } from "../connections/call-access";
import { accountRegion, regionAllows } from "../accounts/region";

export interface CallRequest {
  toolId: string | undefined;
  parameters: Record<string, unknown>;
  searchId?: string;
  sessionId?: string;
  model?: string;
  maxResponseSize: number;
  respondWith?: string;
  cacheMode: "default" | "bypass";
  idempotencyKey?: string;
}

export interface Caller {
  accountId: string;
  apiKeyId: string | null;
  userId: string | null;
  /** Present when the bearer is an agent delegation token (RFC 8693), with the OAuth client it was issued to. */
  delegation?: { jti: string; clientId?: string; toolIds?: string[]; providerIds?: string[]; runId?: string; model?: string };
  /** How the Call arrived (recorded on its usage event); REST by default. */
  channel?: UsageChannel;
}

export interface CallResponse {
  execution_id?: string;
  success: boolean;
  result?: ShapedResult | { data: Record<string, never> };
  error_message: string | null;
  details?: ValidationIssue[];
  execution_time: number;
  elapsed_time_ms: number;
  billing?: { summary: string; list_amount_credits: number };
  cost?: number;
  remaining_credits: number | null;
  execution_outcome?: { outcome: string; reason_code: ReasonCode; charge_outcome: string; http_status?: number; cache_hit: boolean };
}

export interface CallResult {
  status: 200 | 400 | 402 | 403 | 404 | 409 | 422;
  body: CallResponse | Partial<CallResponse>;
  /** Milliseconds spent in each phase that ran (sent as `Server-Timing`). */
  timings?: Partial<Record<CallPhase, number>>;
}

/** Phases of a Call, in order: lookup and validation, reservation, provider, result shaping, settlement. */


const outcomeOf: Record<ReasonCode, string> = {
  "result.valid": "success",
  "result.partial_success": "partial_success",
  "result.empty": "empty",
  "provider.error": "provider_error",
  "provider.http_error": "provider_error",
  "provider.rate_limited": "provider_error",
  "provider.auth_or_permission": "provider_error",
  "transport.timeout": "transport_error",
  "transport.no_response": "transport_error",
  "transport.execution_failed": "transport_error",
  validation_error: "validation_error",
  tool_unavailable: "unavailable",
  "billing.insufficient_credits": "not_executed",
  "billing.delegation_cap": "not_executed",
  "billing.budget_exceeded": "not_executed",
  "delegation.scope_denied": "not_executed",
  oauth_signin_required: "not_executed",
  region_restricted: "not_executed",
};

/**
 * Call (`POST /tools/execute`): validate, reserve when the tool waits on an upstream, execute
 * outside any transaction, settle in one statement, shape the result. Every path that gets past
 * authentication leaves an execution and a usage event the user can find in their history.
 */
export async function callTool(db: Db, caller: Caller, req: CallRequest, clock: Clock = systemClock): Promise<CallResult> {
  const started = performance.now();
  // Budgets apply per account, per API key and per OAuth client, in the period containing `at`.
  const spender = { at: clock.now(), clientId: caller.delegation?.clientId ?? null };
  const timings: Partial<Record<CallPhase, number>> = {};
  let phaseStart = started;
  /** Closes the running phase, which was `phase`. */
  const lap = (phase: CallPhase) => {
    const now = performance.now();
    timings[phase] = msSince(phaseStart, now);
    phaseStart = now;
  };
  const executionId = newId("exe");
  const sessionId = req.sessionId ?? executionId;
  const model = req.model ?? caller.delegation?.model ?? null;

  const reject = async (status: CallResult["status"], reason: ReasonCode, message: string, details?: ValidationIssue[], tool?: ToolRecord, result?: Record<string, unknown>) => {
    const ms = msSince(started);
    const outcome = await recordCall(
      db,
      { ...baseExecution(), reasonCode: reason, parameters: tool ? storedParameters(tool.target.execution, req.parameters) : req.parameters },
      failureEvent({ reason, message, tool, toolId: req.toolId ?? null, ms, requestPayload: requestPayload(req), details }),
      spender,
    );
    countCall(reason, "failed_not_charged");
    return {
      status,
      body: {
        execution_id: executionId,
        success: false,
        result: { data: {}, ...result },
        error_message: message,
        ...(details ? { details } : {}),
        execution_time: seconds(ms),
        elapsed_time_ms: ms,
        billing: { summary: "Not charged", list_amount_credits: 0 },
        cost: 0,
        // The reason code REST and MCP clients act on (insufficient credits, a delegation cap or a budget).
        execution_outcome: { outcome: outcomeOf[reason], reason_code: reason, charge_outcome: "failed_not_charged", cache_hit: false },
        remaining_credits: !outcome.written || outcome.availableAfter == null ? null : creditsToNumber(outcome.availableAfter),
      },
    } satisfies CallResult;
  };

  const baseExecution = () => ({
    id: executionId,
    accountId: caller.accountId,
    apiKeyId: caller.apiKeyId,
    delegationJti: caller.delegation?.jti ?? null,
    toolId: req.toolId ?? "",
    searchId: req.searchId ?? null,
    sessionId,
    model,
    runId: caller.delegation?.runId ?? null,
    oauthClientId: caller.delegation?.clientId ?? null,
    channel: caller.channel ?? "api",
    status: "settled" as const,
    parameters: req.parameters,
    success: false,
    reasonCode: "validation_error",
    chargeOutcome: "failed_not_charged",
    settledCredits: "0",
    durationMs: 0,
    settledAt: new Date(),
  });

  const failureEvent = (f: { reason: ReasonCode; message: string; tool?: ToolRecord; toolId: string | null; ms: number; requestPayload: unknown; details?: ValidationIssue[] }): UsageEventInput => ({
    accountId: caller.accountId,
    apiKeyId: caller.apiKeyId,
    userId: caller.userId,
    eventType: "tool_execute",
    channel: caller.channel,
    sourceRefType: "execution",
    sourceRefId: executionId,
    sessionId,
    searchId: req.searchId ?? null,
    executionId,
    toolId: f.toolId,
    success: false,
    settledAmount: "0",
    reasonCode: f.reason,
    errorMessage: f.message,
    durationMs: Math.round(f.ms),
    billingSnapshotStatus: f.tool ? "captured" : "not_applicable",
    billingRuleSnapshot: f.tool ? (f.tool.billingRule ?? { unit: "free", amount_credits: 0 }) : null,
    preSettlementBill: { execution_id: executionId, summary: "Not charged", list_amount_credits: 0 },
    // The execution_outcome the Call answered with (its charge_outcome and cache_hit are columns too).
    executionOutcome: { outcome: outcomeOf[f.reason], reason_code: f.reason, charge_outcome: "failed_not_charged", cache_hit: false },
    displayTarget: f.tool?.name ?? f.toolId,
    billingSummary: `Not charged: ${f.reason}`,
    requestPayload: f.requestPayload,
    responsePayloadSummary: f.details ? { details: f.details.slice(0, 20) } : null,
    model,
    runId: caller.delegation?.runId ?? null,
    oauthClientId: caller.delegation?.clientId ?? null,
  });

  // 1. Which tool.
  if (!req.toolId) {
    return reject(400, "validation_error", "tool_id must be given as a query parameter (?tool_id=) or in the JSON body");
  }
  if (!TOOL_ID_PATTERN.test(req.toolId)) {
    return reject(422, "validation_error", `Malformed tool_id "${req.toolId.slice(0, 100)}": use the tool_id exactly as Discover returned it`, [
      { type: "tool_id_malformed", loc: ["query", "tool_id"], msg: "tool_id is not a well-formed tool id", input: req.toolId.slice(0, 200) },
    ]);
  }
  const found = await findTool(db, req.toolId);
  if (!found || found.status !== "active") {
    return reject(404, "tool_unavailable", `Unknown tool_id "${req.toolId}": it may be stale or retired; run Discover again and use a tool_id from its results`);
  }
  const tool = await withCurrentSchema(found);
  const delegation = caller.delegation;
  if (delegation?.toolIds?.length && !delegation.toolIds.includes(tool.id)) {
    return reject(403, "delegation.scope_denied", `This delegation token does not allow tool ${tool.id}`, undefined, tool);
  }
  if (delegation?.providerIds?.length && !delegation.providerIds.includes(tool.target.providerId)) {
    return reject(403, "delegation.scope_denied", `This delegation token does not allow provider ${tool.target.providerId}`, undefined, tool);
  }

  // 2. Shape of the request.
  let mode: RespondWith;
  try {
    mode = parseRespondWith(req.respondWith);
  } catch (err) {
    if (!(err instanceof ProjectionError)) throw err;
    return reject(422, "validation_error", err.message, [{ type: "respond_with_invalid", loc: ["body", "respond_with"], msg: err.message, input: req.respondWith }], tool);
  }
  const details = validateParameters(tool, req.parameters);
  if (details.length > 0) {
    return reject(422, "validation_error", `Invalid parameters for ${tool.id}: ${details.map((d) => d.msg).join("; ")}`, details, tool);
  }
  const parameters = withDefaults(tool, req.parameters);
  const quote = quoteCall(tool.billingRule, tool.params, parameters);

  // 3. Idempotent replay.
  const requestHash = req.idempotencyKey ? hashOf({ tool: tool.id, parameters: req.parameters, searchId: req.searchId, sessionId: req.sessionId, model: req.model, max: req.maxResponseSize, respondWith: req.respondWith }) : null;
  if (req.idempotencyKey) {
    const replay = await replayIdempotent(db, caller.accountId, req.idempotencyKey, requestHash!);
    if (replay) return replay;
  }

  // 3b. The region, and the caller's own credential at the provider: refused before anything is held or sent.
  if (tool.regions) {
    const region = await accountRegion(db, caller.accountId);
    if (!regionAllows(tool.regions, region)) {
      const where = region === null ? "this account has no region set" : `this account's region is ${region}`;
      return reject(200, "region_restricted", `Capability unavailable in the current region: ${tool.id} may be called from ${tool.regions.join(", ")}, and ${where}`, undefined, tool, { regions: tool.regions });
    }
  }
  const access = await callAccess(db, { accountId: caller.accountId, userId: caller.userId, apiKeyId: caller.apiKeyId }, tool.target);
  if (access.kind === "signin") {
    return reject(200, "oauth_signin_required", `OAuth sign-in needed before execution: ${access.message}. Nothing was sent or charged; open signin_url to connect, then call again`, undefined, tool, signinResult(access));
  }
  if (access.kind === "unavailable") return reject(200, "provider.error", `The connection to the provider cannot be used now: ${access.message}; nothing was sent`, undefined, tool);
  const connection = access.kind === "connection" ? access.connection : undefined;

  // 4. Reserve when the call waits on an upstream (or must be exactly-once, or is capped).
  const reserved = quote.estimateCredits;
  const needsReservation =
    (creditsPositive(reserved) && tool.target.transport !== "builtin") || req.idempotencyKey !== undefined || delegation !== undefined;
  const base = {
    ...baseExecution(),
    toolId: tool.id,
    providerId: tool.target.providerId,
    parameters: storedParameters(tool.target.execution, parameters),
    idempotencyKey: req.idempotencyKey ?? null,
    requestHash,
  };
  lap("validate");
  if (needsReservation) {
    let r;
    try {
      r = await reserveCall(db, { ...base, reservationExpiresAt: new Date(Date.now() + tool.target.timeoutMs + env().RESERVATION_MARGIN_SECONDS * 1000), settledAt: null }, reserved, delegation?.jti, spender);
    } catch (err) {
      if (req.idempotencyKey && isUniqueViolation(err)) {
        const replay = await replayIdempotent(db, caller.accountId, req.idempotencyKey, requestHash!);
        if (replay) return replay;
      }
      throw err;
    }
    if (!r.reserved) {
      if (r.reason === "budget_exceeded") return budgetExceeded(r.budget, reserved);
      return r.reason === "delegation_cap"
        ? reject(402, "billing.delegation_cap", `This call may cost ${creditsText(reserved)}, more than the delegation token's remaining max_credits`, undefined, tool)
        : insufficient(reserved);
    }
  }

  if (needsReservation) {
    lap("reserve");
    countCreditsReserved(creditsToNumber(reserved));
  }

  // 5. Execute, outside any transaction.
  let outcome: ProviderOutcome | undefined;
  let cacheHit = false;
  // A result got with someone's own connection is theirs: never cached for another caller.
  const cacheable = tool.cacheable && !connection;
  if (cacheable && req.cacheMode !== "bypass") {
    outcome = cachedOutcome(db, tool.id, parameters);
    cacheHit = outcome !== undefined;
  }
  if (!outcome) {
    outcome = await adapterFor(tool.target.transport).execute(tool.target, parameters, connection ? { connection } : undefined);
    if (cacheable) storeOutcome(db, tool.id, parameters, outcome, tool.cacheTtlSeconds);
  }
  lap("provider");
  const success = isSuccessful(outcome.reasonCode);
  const amount = success ? settleAmount(tool.billingRule, tool.params, parameters, outcome.data).amount : "0";
  const chargeOutcome = deriveChargeOutcome(success, amount);

  // 6. Shape the result (full content of a large result goes to the result store).
  // The provider refused the connection and would not renew it: the answer says where to connect again.
  const failedResult = outcome.reasonCode === "oauth_signin_required" && access.kind === "connection" ? { data: {}, ...signinResult(access.reconnect) } : { data: {} };
  const shaped = success ? await shapeResult(db, executionId, outcome.data, mode, req.maxResponseSize) : { result: failedResult as { data: Record<string, never> }, truncated: false, sizeBytes: 2 };
  const ms = msSince(started);
  lap("shape");
  const listAmount = creditsToNumber(amount);
  const billing = { summary: billingSummary(tool, quote, amount, success, outcome.reasonCode, cacheHit), list_amount_credits: listAmount };
  const executionOutcome = {
    outcome: outcomeOf[outcome.reasonCode],
    reason_code: outcome.reasonCode,
    charge_outcome: chargeOutcome,
    ...(outcome.httpStatus ? { http_status: outcome.httpStatus } : {}),
    cache_hit: cacheHit,
  };
  const body: CallResponse = {
    execution_id: executionId,
    success,
    result: shaped.result,
    error_message: success ? null : (outcome.errorMessage ?? outcome.reasonCode),
    execution_time: seconds(ms),
    elapsed_time_ms: ms,
    billing,
    cost: listAmount,
    remaining_credits: null,
    execution_outcome: executionOutcome,
  };

  // 7. Settle: execution, usage event and (when charged) the ledger row, in one statement.
  const ledgerId = newId("led");
  const eventId = newUuid();
  const event: UsageEventInput = {
    id: eventId,
    accountId: caller.accountId,
    apiKeyId: caller.apiKeyId,
    userId: caller.userId,
    eventType: "tool_execute",
    channel: caller.channel,
    sourceRefType: "execution",
    sourceRefId: executionId,
    sessionId,
    searchId: req.searchId ?? null,
    executionId,
    toolId: tool.id,
    success,
    settledAmount: amount,
    preSettlementAmount: amount,
    requestedAmount: reserved,
    reasonCode: outcome.reasonCode,
    errorMessage: body.error_message,
    durationMs: Math.round(ms),
    billingSnapshotStatus: "captured",
    billingRuleSnapshot: tool.billingRule ?? { unit: "free", amount_credits: 0 },
    preSettlementBill: { execution_id: executionId, summary: billing.summary, list_amount_credits: listAmount },
    settlementResult: { settled_amount_credits: listAmount, quote_exact: quote.exact },
    executionOutcome,
    displayTarget: tool.name,
    billingSummary: billing.summary,
    requestPayload: requestPayload(req),
    responsePayloadSummary: { success, size_bytes: shaped.sizeBytes, truncated: shaped.truncated, respond_with: mode.mode },
    cacheHit,
    model,
    runId: delegation?.runId ?? null,
    oauthClientId: delegation?.clientId ?? null,
  };
  const charge: Charge = {
    amount,
    ledger: {
      id: ledgerId,
      entry_type: "consume_tool_execute",
      description: `Call ${tool.id}`,
      source_ref_type: "execution",
      source_ref_id: executionId,
      execution_id: executionId,
      usage_event_id: eventId,
      api_key_id: caller.apiKeyId,
      pre_settlement_bill: { execution_id: executionId, summary: billing.summary, list_amount_credits: listAmount },
      settlement_result: { settled_amount_credits: listAmount },
      ledger_metadata: { tool_id: tool.id, ...(delegation ? { run_id: delegation.runId ?? null, model, delegation_jti: delegation.jti, ...(delegation.clientId ? { client_id: delegation.clientId } : {}) } : {}), ...(cacheHit ? { cache_hit: true } : {}) },
    },
  };
  // What the client is sent (`respond_with=summary` keeps only the fields the contract lists); an
  // idempotent retry is answered with the same body, with the balance of its own time.
  const sent = (): CallResponse | Partial<CallResponse> =>
    mode.mode === "summary"
      ? { execution_id: executionId, success, elapsed_time_ms: ms, cost: listAmount, remaining_credits: body.remaining_credits, result: shaped.result, error_message: body.error_message, execution_time: body.execution_time }
      : body;
  const settledFields = {
    success,
    reasonCode: outcome.reasonCode,
    chargeOutcome,
    settledCredits: amount,
    durationMs: Math.round(ms),
    cacheHit,
    response: req.idempotencyKey ? sent() : null,
    responseStatus: req.idempotencyKey ? 200 : null,
  };

  const charged = creditsPositive(amount);
  let settled: SettleOutcome | null;
  if (needsReservation) {
    settled = await settleReservedCall(db, { executionId, accountId: caller.accountId, update: settledFields, event, charge: charged ? charge : undefined, at: spender.at, delegated: delegation !== undefined });
  } else {
    const recorded = await recordCall(db, { ...base, ...settledFields, settledAt: new Date() }, event, spender, charged ? charge : undefined);
    if (!recorded.written) return recorded.budget ? budgetExceeded(recorded.budget, amount) : insufficient(amount);
    settled = recorded;
  }
  lap("settle");
  if (charged && settled.settled) autoTopupAfterCharge(db, caller.accountId, settled.availableAfter);
  body.remaining_credits = settled.availableAfter == null ? null : creditsToNumber(settled.availableAfter);
  if (!settled.settled) {
    countCall("transport.execution_failed", "failed_not_charged");
    return { ...released(body.remaining_credits), timings };
  }
  countCall(outcome.reasonCode, chargeOutcome);
  if (charged) countCreditsSettled(listAmount);
  return { status: 200, body: sent(), timings };

  /**
   * The Call outlived its reservation, which the sweeper released and recorded as a failed,
   * uncharged execution: the answer says the same, and the result is not handed out for free.
   */
  function released(remaining: number | null): CallResult {
    return {
      status: 200,
      body: {
        execution_id: executionId,
        success: false,
        result: { data: {} },
        error_message: "The call took longer than its credit reservation allows; the reservation was released, nothing was charged and the result is withheld. Retry the call.",
        execution_time: seconds(ms),
        elapsed_time_ms: ms,
        billing: { summary: "Not charged: reservation released", list_amount_credits: 0 },
        cost: 0,
        remaining_credits: remaining,
        execution_outcome: { outcome: outcomeOf["transport.execution_failed"], reason_code: "transport.execution_failed", charge_outcome: "failed_not_charged", cache_hit: cacheHit },
      },
    };
  }

  /** 402 naming the budget the Call would cross and when it resets; nothing was held or charged. */
  async function budgetExceeded(refusal: BudgetRefusal, needed: string): Promise<CallResult> {
    const budget = await withScopeName(db, refusal);
    const message = budgetRefusalMessage(budget, needed);
    // The first refusal of a budget's period tells the account (notification, `budget.refusing`
    // webhook): its agents have begun to be stopped. Later refusals in the period find the claim taken.
    // The period is named by its end, as an ISO instant (PostgreSQL's JSON spelling follows the session's zone).
    const resetsAt = budget.resets_at === null ? null : new Date(budget.resets_at).toISOString();
    await notify(db, {
      accountId: caller.accountId,
      kind: "budget_refusing",
      claimKey: `budget_refusing:${budget.budget_id}:${resetsAt ?? "lifetime"}`,
      payload: { ...budget, resets_at: resetsAt, scope_id: budget.scope_id || null, needed_credits: needed, tool_id: req.toolId ?? null, api_key_id: caller.apiKeyId },
    });
    return reject(402, "billing.budget_exceeded", message, [{ type: "budget_exceeded", loc: ["budget", budget.budget_id], msg: message, input: { ...budget, needed_credits: needed } }], tool ?? undefined);
  }

  async function insufficient(needed: string): Promise<CallResult> {
    // A refusal for want of credits is when auto top-up matters most (its threshold may be below this Call's price).
    autoTopupAfterCharge(db, caller.accountId, "0");
    return reject(402, "billing.insufficient_credits", `Insufficient credits: this call needs ${creditsText(needed)}`, undefined, tool ?? undefined);
  }
}

/** The result of a Call refused for want of the caller's connection: where to connect, for which provider and scopes. */
function signinResult(signin: Signin): Record<string, unknown> {
  return { signin_url: signin.signinUrl, provider_id: signin.providerId, scopes: signin.scopes };
}

/** Seconds from milliseconds, to the microsecond (no float noise such as 0.06309000000000001). */
function seconds(ms: number): number {
  return Math.round(ms * 1000) / 1_000_000;
}

function billingSummary(tool: ToolRecord, quote: Quote, amount: string, success: boolean, reason: ReasonCode, cacheHit: boolean): string {
  if (!success) return `Not charged: ${reason}`;
  const prefix = cacheHit ? "Served from cache; " : "";
  if (credits(amount).isZero()) return `${prefix}Included (${tool.billingRule?.unit === "free" || !tool.billingRule ? "free tool" : "no billable units"})`;
  return `${prefix}${creditsText(amount)} (${quote.basis})`;
}

function requestPayload(req: CallRequest) {
  const parameters = JSON.stringify(req.parameters);
  return {
    tool_id: req.toolId ?? null,
    parameters: parameters.length > 4096 ? { truncated: true, size_bytes: parameters.length } : req.parameters,
    search_id: req.searchId ?? null,
    session_id: req.sessionId ?? null,
    model: req.model ?? null,
    respond_with: req.respondWith ?? "full",
    max_response_size: req.maxResponseSize,
  };
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === "23505" || e.cause?.code === "23505";
}

/**
 * The first outcome answers every retry with the same key and body; another body with the same
 * key is refused (422); a retry while the first is still running gets 409 and never executes.
 */
async function replayIdempotent(db: Db, accountId: string, key: string, requestHash: string): Promise<CallResult | null> {
  // The stored response was written before its settlement knew the balance: a replay reports the current one.
  const rows = await db
    .select({
      id: executions.id,
      status: executions.status,
      requestHash: executions.requestHash,
      response: executions.response,
      responseStatus: executions.responseStatus,
      available: sql<string | null>`(SELECT paid_credits + bonus_credits + reward_credits - reserved_credits FROM credit_balances WHERE account_id = ${accountId})`,
    })
    .from(executions)
    .where(and(eq(executions.accountId, accountId), eq(executions.idempotencyKey, key)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  if (row.requestHash !== requestHash) {
    return {
      status: 422,
      body: {
        success: false,
        error_message: "Idempotency-Key was already used with a different request body",
        details: [{ type: "idempotency_key_reused", loc: ["header", "Idempotency-Key"], msg: "Idempotency-Key reused with a different request", input: key }],
        execution_time: 0,
        elapsed_time_ms: 0,
        remaining_credits: null,
      },
    };
  }
  if (row.status === "reserved") {
    return { status: 409, body: { execution_id: row.id, success: false, error_message: "A request with this Idempotency-Key is still running; retry later", execution_time: 0, elapsed_time_ms: 0, remaining_credits: null } };
  }
  if (!row.response) {
    return { status: 409, body: { execution_id: row.id, success: false, error_message: "The request with this Idempotency-Key did not complete; use a new key", execution_time: 0, elapsed_time_ms: 0, remaining_credits: null } };
  }
  const response = row.response as CallResponse;
  return { status: (row.responseStatus ?? 200) as 200, body: { ...response, remaining_credits: row.available == null ? null : creditsToNumber(row.available) } };
}

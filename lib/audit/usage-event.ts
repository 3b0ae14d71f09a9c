import { usageEvents, type UsageChannel, type UsageEventType } from "../db/schema";
import type { Db } from "../db/types";
import { newUuid } from "../ids";
import { creditsToSql } from "../money";
import { deriveChargeOutcome } from "../billing/charge-outcome";
import { compactUsageRow } from "./usage-compact";

export type BillingSnapshotStatus = "captured" | "not_applicable" | "missing";

export interface UsageEventInput {
  id?: string;
  accountId: string;
  apiKeyId?: string | null;
  userId?: string | null;
  eventType: UsageEventType;
  /** REST (default) or MCP. */
  channel?: UsageChannel;
  sourceRefType?: string;
  sourceRefId?: string;
  sessionId?: string | null;
  searchId?: string | null;
  executionId?: string | null;
  toolId?: string | null;
  /** The recorded success flag; `billableSuccess` defaults to it. */
  success: boolean;
  billableSuccess?: boolean;
  /** Final settled credits; the charge outcome derives from it and `billableSuccess`. */
  settledAmount: string;
  preSettlementAmount?: string;
  requestedAmount?: string;
  reasonCode?: string | null;
  errorMessage?: string | null;
  durationMs?: number;
  billingSnapshotStatus?: BillingSnapshotStatus;
  billingRuleSnapshot?: unknown;
  preSettlementBill?: unknown;
  settlementResult?: unknown;
  executionOutcome?: { outcome: string; reason_code?: string; [k: string]: unknown } | null;
  creditsLedgerEntryId?: string | null;
  displayTarget?: string | null;
  billingSummary?: string | null;
  requestPayload?: unknown;
  responsePayloadSummary?: unknown;
  cacheHit?: boolean;
  model?: string | null;
  runId?: string | null;
  /** The OAuth client whose token made the request. */
  oauthClientId?: string | null;
}

/**
 * Builds the usage_events row as stored; every writer goes through here so fields are filled
 * consistently. JSON keys that repeat a column are left out (`compactUsageRow`): the readers put them back.
 */
export function usageEventRow(input: UsageEventInput): typeof usageEvents.$inferInsert {
  const settled = creditsToSql(input.settledAmount);
  const billable = input.billableSuccess ?? input.success;
  return compactUsageRow({
    id: input.id ?? newUuid(),
    accountId: input.accountId,
    apiKeyId: input.apiKeyId ?? null,
    userId: input.userId ?? null,
    eventType: input.eventType,
    channel: input.channel ?? "api",
    sourceSystem: "tollgate",
    sourceRefType: input.sourceRefType ?? null,
    sourceRefId: input.sourceRefId ?? null,
    sessionId: input.sessionId ?? null,
    searchId: input.searchId ?? null,
    executionId: input.executionId ?? null,
    toolId: input.toolId ?? null,
    success: input.success,
    billableSuccess: billable,
    chargeOutcome: deriveChargeOutcome(billable, settled),
    reasonCode: input.reasonCode ?? null,
    errorMessage: input.errorMessage ?? null,
    durationMs: input.durationMs ?? null,
    billingSnapshotStatus: input.billingSnapshotStatus ?? (input.billingRuleSnapshot ? "captured" : "not_applicable"),
    billingRuleSnapshot: input.billingRuleSnapshot ?? null,
    preSettlementBill: input.preSettlementBill ?? null,
    settlementResult: input.settlementResult ?? { settled_amount_credits: Number(settled) },
    preSettlementAmountCredits: creditsToSql(input.preSettlementAmount ?? settled),
    settledAmountCredits: settled,
    requestedAmountCredits: creditsToSql(input.requestedAmount ?? input.preSettlementAmount ?? settled),
    actualAmountCredits: settled,
    executionOutcome: input.executionOutcome ?? null,
    outcome: input.executionOutcome?.outcome ?? null,
    creditsLedgerEntryId: input.creditsLedgerEntryId ?? null,
    displayTarget: input.displayTarget ?? null,
    billingSummary: input.billingSummary ?? null,
    requestPayload: input.requestPayload ?? null,
    responsePayloadSummary: input.responsePayloadSummary ?? null,
    cacheHit: input.cacheHit ?? false,
    model: input.model ?? null,
    runId: input.runId ?? null,
    oauthClientId: input.oauthClientId ?? null,
  });
}

export async function recordUsageEvent(db: Db, input: UsageEventInput): Promise<string> {
  const row = usageEventRow(input);
  await db.insert(usageEvents).values(row);
  return row.id as string;
}

import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, credits } from "./columns";

export const usageEventTypes = ["search", "search_by_ids", "tool_execute", "capabilities_query", "model_call"] as const;
/** How the request reached Tollgate: the REST API or the MCP endpoint. */
export const usageChannels = ["api", "mcp"] as const;
export type UsageChannel = (typeof usageChannels)[number];
export type UsageEventType = (typeof usageEventTypes)[number];
export const chargeOutcomes = ["charged", "included", "failed_not_charged", "failed_charged_review"] as const;
export type ChargeOutcome = (typeof chargeOutcomes)[number];

/**
 * Usage events (contract 2.4b). Written in the same transaction as the ledger row they link to.
 * Partitioned by month of `created_at` (migration 0015, which drizzle cannot express: this
 * definition serves queries and types); hence the primary key (id, created_at).
 */
export const usageEvents = pgTable(
  "usage_events",
  {
    id: uuid("id").notNull(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    apiKeyId: uuid("api_key_id"),
    userId: text("user_id"),
    eventType: text("event_type", { enum: usageEventTypes }).notNull(),
    channel: text("channel", { enum: usageChannels }).notNull().default("api"),
    sourceSystem: text("source_system").notNull(),
    sourceRefType: text("source_ref_type"),
    sourceRefId: text("source_ref_id"),
    sessionId: text("session_id"),
    searchId: text("search_id"),
    executionId: text("execution_id"),
    toolId: text("tool_id"),
    success: boolean("success").notNull(),
    billableSuccess: boolean("billable_success").notNull(),
    chargeOutcome: text("charge_outcome", { enum: chargeOutcomes }).notNull(),
    reasonCode: text("reason_code"),
    errorMessage: text("error_message"),
    durationMs: integer("duration_ms"),
    billingSnapshotStatus: text("billing_snapshot_status").notNull(),
    billingRuleSnapshot: jsonb("billing_rule_snapshot"),
    preSettlementBill: jsonb("pre_settlement_bill"),
    settlementResult: jsonb("settlement_result"),
    preSettlementAmountCredits: credits("pre_settlement_amount_credits").notNull().default("0"),
    settledAmountCredits: credits("settled_amount_credits").notNull().default("0"),
    requestedAmountCredits: credits("requested_amount_credits").notNull().default("0"),
    actualAmountCredits: credits("actual_amount_credits").notNull().default("0"),
    executionOutcome: jsonb("execution_outcome"),
    outcome: text("outcome"),
    creditsLedgerEntryId: text("credits_ledger_entry_id"),
    displayTarget: text("display_target"),
    billingSummary: text("billing_summary"),
    requestPayload: jsonb("request_payload"),
    responsePayloadSummary: jsonb("response_payload_summary"),
    cacheHit: boolean("cache_hit").notNull().default(false),
    model: text("model"),
    runId: text("run_id"),
    /** The OAuth client whose token made the request (a delegation token's client), for spend attribution. */
    oauthClientId: text("oauth_client_id"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: "usage_events_pkey", columns: [t.id, t.createdAt] }),
    // The list order (lib/audit): a page is an index range; filters without an index of their own walk it (docs/audit.md, Indexes).
    index("usage_account_created_idx").on(t.accountId, t.createdAt.desc(), t.id.desc()),
    index("usage_account_review_idx").on(t.accountId, t.createdAt.desc(), t.id.desc()).where(sql`${t.chargeOutcome} = 'failed_charged_review'`),
    index("usage_account_amount_idx").on(t.accountId, t.actualAmountCredits.desc(), t.createdAt.desc()).where(sql`${t.actualAmountCredits} > 0`),
    index("usage_account_no_snapshot_idx")
      .on(t.accountId, t.createdAt.desc(), t.id.desc())
      .where(sql`${t.eventType} = 'tool_execute' AND ${t.billingSnapshotStatus} <> 'captured'`),
    index("usage_execution_idx").on(t.executionId).where(sql`${t.executionId} IS NOT NULL`),
    index("usage_search_idx").on(t.searchId).where(sql`${t.searchId} IS NOT NULL`),
    index("usage_session_idx").on(t.sessionId).where(sql`${t.sessionId} IS NOT NULL`),
    // An agent run's Calls in order (the dashboard's run page).
    index("usage_account_run_idx").on(t.accountId, t.runId, t.createdAt).where(sql`${t.runId} IS NOT NULL`),
    index("usage_ledger_entry_idx").on(t.creditsLedgerEntryId).where(sql`${t.creditsLedgerEntryId} IS NOT NULL`),
  ],
);

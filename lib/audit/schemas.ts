import { z } from "@hono/zod-openapi";
import { chargeOutcomes, ledgerEntryTypes, usageChannels, usageEventTypes } from "../db/schema";
import { anomalies } from "./usage-filters";

/**
 * Response shapes of the audit endpoints (contract 2.4b, 2.6, 2.7), written once: the route
 * descriptions, the TypeScript types of lib/audit and the OpenAPI document all come from here.
 */

const json = z.unknown().nullable();

export const UsageEventItemSchema = z
  .object({
    id: z.string().uuid(),
    event_type: z.enum(usageEventTypes),
    channel: z.enum(usageChannels).openapi({ description: "Extension: `api` (REST) or `mcp` (the MCP endpoint)" }),
    source_system: z.string(),
    source_ref_type: z.string().nullable(),
    source_ref_id: z.string().nullable(),
    session_id: z.string().nullable(),
    search_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    tool_id: z.string().nullable(),
    tool_name: z.string().nullable().openapi({ description: "Extension: the tool's name in the catalog (null when the event names no tool, or the tool is no longer in the catalog)" }),
    api_key_id: z.string().nullable(),
    api_key_name: z.string().nullable().openapi({ description: "Extension: the name of the API key that made the request (null without a key)" }),
    success: z.boolean(),
    billable_success: z.boolean(),
    charge_outcome: z.enum(chargeOutcomes),
    reason_code: z.string().nullable(),
    error_message: z.string().nullable(),
    duration_ms: z.number().nullable(),
    billing_snapshot_status: z.string(),
    billing_rule_snapshot: json,
    pre_settlement_bill: json,
    settlement_result: json,
    pre_settlement_amount_credits: z.number(),
    settled_amount_credits: z.number(),
    requested_amount_credits: z.number(),
    actual_amount_credits: z.number(),
    execution_outcome: json,
    outcome: z.string().nullable(),
    credits_ledger_entry_id: z.string().nullable(),
    display_target: z.string().nullable(),
    billing_summary: z.string().nullable(),
    model: z.string().nullable(),
    run_id: z.string().nullable().openapi({ description: "Extension: the agent run (a delegation token's run_id)" }),
    oauth_client_id: z.string().nullable().openapi({ description: "Extension: the OAuth client whose token made the request" }),
    cache_hit: z.boolean(),
    anomalies: z.array(z.enum(anomalies)).openapi({ description: "Computed on read, never stored" }),
    request_payload: json.optional().openapi({ description: "Only with include_details=true (and on the single-event read)" }),
    response_payload_summary: json.optional().openapi({ description: "Only with include_details=true (and on the single-event read)" }),
    created_at: z.string(),
  })
  .openapi("UsageEventItem");
export type UsageEventItem = z.infer<typeof UsageEventItemSchema>;

const chargeOutcomeCounts = z.object({ charged: z.number(), included: z.number(), failed_not_charged: z.number(), failed_charged_review: z.number() });

export const UsageSummarySchema = z
  .object({
    start_date: z.string(),
    end_date: z.string().openapi({ description: "Exclusive end of the window" }),
    tz: z.string().openapi({ description: "Extension: the IANA time zone of the bucket boundaries (default UTC)" }),
    bucket: z.enum(["hour", "day", "week"]),
    total_count: z.number(),
    success_count: z.number(),
    failure_count: z.number(),
    charge_outcome_counts: chargeOutcomeCounts,
    pre_settlement_credits: z.number(),
    settled_credits: z.number(),
    max_charge_items: z.array(UsageEventItemSchema).openapi({ description: "The largest charges in the window (limit, default 10, at most 50)" }),
    buckets: z.array(
      z.object({
        bucket_start: z.string().openapi({ description: "The bucket's first instant (UTC)" }),
        bucket_start_local: z.string().openapi({ description: "Extension: the same instant as local time in tz" }),
        total_count: z.number(),
        success_count: z.number(),
        failure_count: z.number(),
        charged_count: z.number(),
        included_count: z.number(),
        failed_not_charged_count: z.number(),
        failed_charged_review_count: z.number(),
        pre_settlement_credits: z.number(),
        settled_credits: z.number(),
      }),
    ),
  })
  .openapi("UsageSummary");
export type UsageSummary = z.infer<typeof UsageSummarySchema>;

export const UsageHistorySchema = z
  .object({
    items: z.array(UsageEventItemSchema),
    total: z.number(),
    page: z.number(),
    page_size: z.number().openapi({ description: "The page size applied (`limit` when given, capped at 50)" }),
    summary: UsageSummarySchema.nullable(),
  })
  .openapi("UsageHistory");

export const UsageFeedItemSchema = z
  .object({
    id: z.string().uuid(),
    created_at: z.string(),
    event_type: z.enum(usageEventTypes),
    tool_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    search_id: z.string().nullable(),
    session_id: z.string().nullable(),
    success: z.boolean(),
    charge_outcome: z.enum(chargeOutcomes),
    reason_code: z.string().nullable(),
    actual_amount_credits: z.number(),
    credits_ledger_entry_id: z.string().nullable(),
    billing_summary: z.string().nullable(),
    duration_ms: z.number().nullable(),
  })
  .openapi("UsageFeedItem");

export const UsageFeedSchema = z
  .object({
    items: z.array(UsageFeedItemSchema),
    page_size: z.number(),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next (older) page; null on the last page" }),
    has_more: z.boolean(),
  })
  .openapi("UsageFeed");

export const CreditsSpentSchema = z
  .object({
    credits_spent: z.number().openapi({ description: "Sum of actual_amount_credits of the matching events" }),
    event_count: z.number(),
    charged_event_count: z.number().openapi({ description: "Matching events with a charge (charged or failed_charged_review)" }),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
    kind: z.string().nullable(),
    charge_outcome: z.string().nullable(),
  })
  .openapi("CreditsSpent");

const balanceSnapshot = z.object({ total_available_credits: z.number() });

export const LedgerItemSchema = z
  .object({
    id: z.string(),
    entry_type: z.enum(ledgerEntryTypes),
    amount_credits: z.number().openapi({ description: "Signed: negative consumes credits, positive grants" }),
    source_system: z.string(),
    source_ref_type: z.string().nullable(),
    source_ref_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    usage_event_id: z.string().nullable(),
    pre_settlement_bill: json,
    settlement_result: json,
    balance_before: balanceSnapshot,
    balance_after: balanceSnapshot,
    ledger_metadata: json,
    description: z.string(),
    created_at: z.string(),
    tool_id: z.string().nullable().openapi({ description: "Extension: on a Call's row (with an execution_id), the tool that was charged or refunded; null on other rows" }),
    tool_name: z.string().nullable().openapi({ description: "Extension: that tool's name in the catalog (null when it is no longer there)" }),
  })
  .openapi("LedgerItem");
export type LedgerItem = z.infer<typeof LedgerItemSchema>;

export const LedgerSummarySchema = z
  .object({
    start_date: z.string(),
    end_date: z.string(),
    tz: z.string(),
    bucket: z.enum(["hour", "day", "week"]),
    total_entries: z.number(),
    consume_count: z.number(),
    grant_count: z.number(),
    consumed_credits: z.number(),
    granted_credits: z.number(),
    net_amount_credits: z.number(),
    max_amount_items: z.array(LedgerItemSchema),
    buckets: z.array(
      z.object({
        bucket_start: z.string(),
        bucket_start_local: z.string(),
        entry_count: z.number(),
        consume_count: z.number(),
        grant_count: z.number(),
        consumed_credits: z.number(),
        granted_credits: z.number(),
        net_amount_credits: z.number(),
      }),
    ),
  })
  .openapi("LedgerSummary");
export type LedgerSummary = z.infer<typeof LedgerSummarySchema>;

export const LedgerListSchema = z
  .object({
    items: z.array(LedgerItemSchema),
    total: z.number(),
    page: z.number(),
    page_size: z.number(),
    summary: LedgerSummarySchema.nullable(),
  })
  .openapi("LedgerList");

export const ReadinessSchema = z
  .object({
    ready: z.boolean().openapi({ description: "True when every check passed for the whole range" }),
    start_date: z.string().nullable(),
    end_date: z.string(),
    checks: z.array(
      z.object({
        name: z.string(),
        passed: z.boolean(),
        violations: z.number(),
        description: z.string(),
        sample_ids: z.array(z.string()).openapi({ description: "Up to 5 offending event or ledger ids (from the part of the range checked live)" }),
      }),
    ),
    events_checked: z.number(),
    charged_events: z.number(),
    ledger_entries_checked: z.number(),
    balance_start: z.number().nullable().openapi({ description: "balance_before of the range's first ledger row" }),
    balance_end: z.number().nullable().openapi({ description: "balance_after of the range's last ledger row" }),
    net_amount_credits: z.number().openapi({ description: "Sum of amount_credits in the range (= balance_end - balance_start when ready)" }),
    sealed_days: z.number().openapi({ description: "Whole UTC days answered from the sealed settlement summary (ready by construction)" }),
    sealed_hours: z.number().openapi({ description: "Whole UTC hours of the range's partial days (mostly today's sealed hours) answered from the sealed hourly summary (ready by construction)" }),
    live_checked_until: z.string().openapi({ description: "The checks ran up to this instant" }),
  })
  .openapi("LedgerReadiness");

export const SettlementDaySchema = z
  .object({
    day: z.string().openapi({ description: "UTC day, YYYY-MM-DD" }),
    bucket_start: z.string(),
    entry_count: z.number(),
    consume_count: z.number(),
    grant_count: z.number(),
    consumed_credits: z.number(),
    granted_credits: z.number(),
    net_amount_credits: z.number(),
    balance_open: z.number().nullable().openapi({ description: "Account balance before the day's first ledger row" }),
    balance_close: z.number().nullable().openapi({ description: "Account balance after the day's last ledger row" }),
    source: z.enum(["summary", "live"]).openapi({ description: "`summary`: the sealed, immutable day row; `live`: computed from the ledger (today, or a day that failed readiness)" }),
    ready: z.boolean(),
  })
  .openapi("SettlementDay");

export const SettlementHistorySchema = z
  .object({
    items: z.array(SettlementDaySchema),
    scope: z.string(),
    page_size: z.number(),
    next_cursor: z.string().nullable(),
    has_more: z.boolean(),
    ready: z.boolean().openapi({ description: "Every item on this page is ledger-complete (the open day counts when its live checks pass)" }),
  })
  .openapi("SettlementHistory");

export const reconciliationStatuses = ["reconciled", "not_charged", "in_flight", "review", "refunded", "broken"] as const;

const ReconciliationSchema = z
  .object({
    status: z.enum(reconciliationStatuses).openapi({
      description:
        "`reconciled`: charged and every link present with matching amounts; `not_charged`: no charge and no ledger row; " +
        "`in_flight`: the Call's reservation is not settled yet; `review`: failed_charged_review (a support case), links present; " +
        "`refunded`: failed_charged_review, and support refunds gave the whole charge back; " +
        "`broken`: a link is missing or amounts disagree (see missing_links)",
    }),
    missing_links: z.array(z.string()).openapi({
      description:
        "What is missing or wrong: usage_event, execution, ledger_entry, duplicate_ledger_entry, amount_mismatch, " +
        "unexpected_ledger_entry, balance_change, outcome_mismatch, refund_mismatch (refund rows do not add up to the execution's refunded_credits)",
    }),
  })
  .openapi("Reconciliation");

const BalanceChangeSchema = z
  .object({
    ledger_entry_id: z.string(),
    balance_before: z.number(),
    amount_credits: z.number(),
    balance_after: z.number(),
    continuous: z.boolean().openapi({ description: "balance_before equals the previous ledger row's balance_after, and balance_after = balance_before + amount" }),
  })
  .openapi("BalanceChange");

export const CallTraceSchema = z
  .object({
    execution_id: z.string(),
    tool_id: z.string().nullable(),
    search_id: z.string().nullable(),
    session_id: z.string().nullable(),
    created_at: z.string().nullable(),
    execution: z
      .object({
        status: z.string(),
        success: z.boolean().nullable(),
        reason_code: z.string().nullable(),
        charge_outcome: z.string().nullable(),
        reserved_credits: z.number(),
        settled_credits: z.number().nullable(),
        refunded_credits: z.number().openapi({ description: "Credits given back by support refunds (never more than settled_credits)" }),
        duration_ms: z.number().nullable(),
        cache_hit: z.boolean(),
        model: z.string().nullable(),
        settled_at: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "The executions row (null when only the usage event exists)" }),
    usage_event: UsageEventItemSchema.nullable(),
    ledger_entries: z.array(LedgerItemSchema),
    balance_changes: z.array(BalanceChangeSchema),
    reconciliation: ReconciliationSchema,
  })
  .openapi("CallTrace");

export const SearchTraceSchema = z
  .object({
    search_id: z.string(),
    query: z.string().nullable(),
    created_at: z.string().nullable(),
    result_count: z.number().nullable(),
    search_event: UsageEventItemSchema.nullable(),
    inspect_events: z.array(UsageEventItemSchema),
    ledger_entries: z.array(LedgerItemSchema).openapi({ description: "Set when the deployment prices search" }),
    reconciliation: ReconciliationSchema,
  })
  .openapi("SearchTrace");

export const LookupSchema = z
  .object({
    id: z.string(),
    resolved_as: z.enum(["execution_id", "search_id", "usage_event_id", "ledger_entry_id", "session_id"]),
    account_id: z.string(),
    account_name: z.string().openapi({ description: "The account's name: support tells the customer's account apart by it" }),
    account_owners: z.array(z.string()).openapi({ description: "The email addresses of the account's owners, the earliest member first" }),
    session_id: z.string().nullable(),
    searches: z.array(SearchTraceSchema).openapi({ description: "Discover steps (with their Inspect events) in the lookup's scope" }),
    calls: z.array(CallTraceSchema).openapi({ description: "Calls in scope, newest first: execution -> usage event -> ledger rows -> balance change" }),
    other_events: z.array(UsageEventItemSchema).openapi({ description: "Events in scope tied to neither a search nor a Call (e.g. model_call)" }),
    ledger_entries: z.array(LedgerItemSchema).openapi({ description: "Ledger rows in scope tied to no event (e.g. a grant looked up by its id)" }),
    timeline: z.array(
      z.object({
        at: z.string(),
        step: z.enum(["search", "inspect", "call", "usage_event", "ledger_entry", "refund", "balance_change"]).openapi({
          description: "`refund`: a support refund's ledger row (its balance change follows)",
        }),
        ref_id: z.string(),
        summary: z.string(),
      }),
    ),
    reconciliation: ReconciliationSchema.extend({
      problems: z.array(z.object({ ref_id: z.string(), link: z.string() })).openapi({ description: "Each missing link with the id it belongs to" }),
    }),
    truncated: z.boolean().openapi({ description: "The scope had more than 100 Calls or 500 events; the newest are shown" }),
  })
  .openapi("Lookup");
export type Lookup = z.infer<typeof LookupSchema>;
export type CallTrace = z.infer<typeof CallTraceSchema>;
export type SearchTrace = z.infer<typeof SearchTraceSchema>;

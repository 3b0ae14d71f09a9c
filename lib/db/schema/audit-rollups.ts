import { bigint, boolean, date, index, integer, jsonb, numeric, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { credits, tsz, updatedAt } from "./columns";

/**
 * Immutable aggregates of sealed time buckets (see docs/audit.md). An hour is sealed once it ended
 * more than ten minutes ago: usage events and ledger rows are written with `created_at = now()`,
 * so nothing new can land in it. Rows are inserted once by `lib/audit/seal.ts` and never changed
 * (triggers reject UPDATE and DELETE); the audit endpoints read them instead of scanning millions
 * of rows, and scan only the unsealed tail and the partial hours at a window's edges.
 */

/**
 * Sealing progress per account: every hour in [sealed_from, sealed_until) is in the rollups below,
 * and nothing of the account happened before `sealed_from` (the hour of its first activity).
 */
export const auditSealState = pgTable("audit_seal_state", {
  accountId: text("account_id").primaryKey(),
  sealedFrom: tsz("sealed_from").notNull(),
  sealedUntil: tsz("sealed_until").notNull(),
  updatedAt: updatedAt(),
});

/** The filterable dimensions of usage events and the measures summed over them (fresh builders per table). */
const usageRollupColumns = () => ({
  eventType: text("event_type").notNull(),
  chargeOutcome: text("charge_outcome").notNull(),
  success: boolean("success").notNull(),
  billableSuccess: boolean("billable_success").notNull(),
  reasonCode: text("reason_code"),
  outcome: text("outcome"),
  hasExecutionOutcome: boolean("has_execution_outcome").notNull(),
  apiKeyId: uuid("api_key_id"),
  billingSnapshotStatus: text("billing_snapshot_status").notNull(),
  eventCount: bigint("event_count", { mode: "number" }).notNull(),
  preSettlementCredits: numeric("pre_settlement_credits").notNull(),
  settledCredits: numeric("settled_credits").notNull(),
});

/** Usage events per account, UTC hour and dimension: summaries and partial days. */
export const usageHourlyRollup = pgTable(
  "usage_hourly_rollup",
  { accountId: text("account_id").notNull(), hourStart: tsz("hour_start").notNull(), ...usageRollupColumns() },
  (t) => [index("usage_rollup_account_hour_idx").on(t.accountId, t.hourStart)],
);

/** The same per UTC day, summed from the hours once the day is sealed: totals over long ranges. */
export const usageDailyRollup = pgTable(
  "usage_daily_rollup",
  { accountId: text("account_id").notNull(), dayStart: tsz("day_start").notNull(), ...usageRollupColumns() },
  (t) => [index("usage_daily_rollup_account_day_idx").on(t.accountId, t.dayStart)],
);

/**
 * Spend attribution (GET /auth/usage/breakdown): usage events per account, hour and who/what spent
 * — tool, API key, OAuth client, model, agent run and channel — with the outcome dimensions the
 * breakdown filters on. A separate table from the summary's rollup, so the summary keeps reading
 * its few rows per hour; sealed with it, in the same transaction, and as immutable.
 */
const usageSpendColumns = () => ({
  eventType: text("event_type").notNull(),
  chargeOutcome: text("charge_outcome").notNull(),
  success: boolean("success").notNull(),
  channel: text("channel").notNull(),
  toolId: text("tool_id"),
  apiKeyId: uuid("api_key_id"),
  oauthClientId: text("oauth_client_id"),
  model: text("model"),
  runId: text("run_id"),
  eventCount: bigint("event_count", { mode: "number" }).notNull(),
  preSettlementCredits: numeric("pre_settlement_credits").notNull(),
  settledCredits: numeric("settled_credits").notNull(),
});

export const usageSpendHourly = pgTable(
  "usage_spend_hourly",
  { accountId: text("account_id").notNull(), hourStart: tsz("hour_start").notNull(), ...usageSpendColumns() },
  (t) => [index("usage_spend_hourly_account_hour_idx").on(t.accountId, t.hourStart)],
);

export const usageSpendDaily = pgTable(
  "usage_spend_daily",
  { accountId: text("account_id").notNull(), dayStart: tsz("day_start").notNull(), ...usageSpendColumns() },
  (t) => [index("usage_spend_daily_account_day_idx").on(t.accountId, t.dayStart)],
);

/**
 * Monthly credit statements of months that have ended and whose days are sealed, stored once and
 * never changed (trigger): the statement a finance team closed on is the one it reads again.
 * `content_hash` is the SHA-256 of the canonical JSON of `body`.
 */
export const creditStatements = pgTable(
  "credit_statements",
  {
    accountId: text("account_id").notNull(),
    month: text("month").notNull(),
    timeZone: text("time_zone").notNull(),
    body: jsonb("body").notNull(),
    contentHash: text("content_hash").notNull(),
    createdAt: tsz("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "credit_statements_pk", columns: [t.accountId, t.month, t.timeZone] })],
);

/** Ledger rows per account, UTC hour and entry type. */
export const ledgerHourlyRollup = pgTable(
  "ledger_hourly_rollup",
  {
    accountId: text("account_id").notNull(),
    hourStart: tsz("hour_start").notNull(),
    entryType: text("entry_type").notNull(),
    entryCount: bigint("entry_count", { mode: "number" }).notNull(),
    consumeCount: bigint("consume_count", { mode: "number" }).notNull(),
    grantCount: bigint("grant_count", { mode: "number" }).notNull(),
    consumedCredits: numeric("consumed_credits").notNull(),
    grantedCredits: numeric("granted_credits").notNull(),
  },
  (t) => [index("ledger_rollup_account_hour_idx").on(t.accountId, t.hourStart)],
);

/** A settlement summary's measures and readiness evidence (fresh builders per table). */
const settlementSummaryColumns = () => ({
  entryCount: integer("entry_count").notNull(),
  byEntryType: jsonb("by_entry_type").notNull(),
  firstSeq: bigint("first_seq", { mode: "number" }),
  lastSeq: bigint("last_seq", { mode: "number" }),
  balanceOpen: credits("balance_open"),
  balanceClose: credits("balance_close"),
  eventsChecked: integer("events_checked").notNull(),
  chargedEvents: integer("charged_events").notNull(),
  sealedAt: tsz("sealed_at").notNull().defaultNow(),
});

/**
 * The settlement history: one row per account and closed UTC day, written only when the ledger
 * readiness checks pass for that whole day (so every row is ledger-complete), never rewritten.
 * `by_entry_type` = {entry_type: {count, amount}} lets a scope pick its entry types.
 */
export const ledgerDailySummary = pgTable(
  "ledger_daily_summary",
  { accountId: text("account_id").notNull(), day: date("day", { mode: "string" }).notNull(), ...settlementSummaryColumns() },
  (t) => [primaryKey({ name: "ledger_daily_summary_pk", columns: [t.accountId, t.day] })],
);

/**
 * The same per UTC hour, for the hours sealed while their day was still open (a day completed by
 * the seal has its daily row instead): readers check only the unsealed tail of today live. Written
 * only for hours that pass every check; the checks compose, so a day is ready iff all its hours are.
 */
export const ledgerHourlySummary = pgTable(
  "ledger_hourly_summary",
  { accountId: text("account_id").notNull(), hourStart: tsz("hour_start").notNull(), ...settlementSummaryColumns() },
  (t) => [primaryKey({ name: "ledger_hourly_summary_pk", columns: [t.accountId, t.hourStart] })],
);

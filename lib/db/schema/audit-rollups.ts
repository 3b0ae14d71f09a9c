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

/** What the usage summary shows of a set of events, summed: counts per outcome, successes, credits (fresh builders per table). */
const summedMeasures = () => ({
  eventCount: bigint("event_count", { mode: "number" }).notNull(),
  succeededCount: bigint("succeeded_count", { mode: "number" }).notNull(),
  chargedCount: bigint("charged_count", { mode: "number" }).notNull(),
  includedCount: bigint("included_count", { mode: "number" }).notNull(),
  failedNotChargedCount: bigint("failed_not_charged_count", { mode: "number" }).notNull(),
  failedChargedReviewCount: bigint("failed_charged_review_count", { mode: "number" }).notNull(),
  preSettlementCredits: numeric("pre_settlement_credits").notNull(),
  settledCredits: numeric("settled_credits").notNull(),
});

/** Usage events per account, UTC hour and dimension: summaries and partial days. */
export const usageHourlyRollup = pgTable(
  "usage_hourly_rollup",
  { accountId: text("account_id").notNull(), hourStart: tsz("hour_start").notNull(), ...usageRollupColumns() },
  (t) => [index("usage_rollup_account_hour_idx").on(t.accountId, t.hourStart)],
);

/**
 * Usage events per account and UTC hour, every dimension summed: the usage summary without filters
 * (the Usage page's default) reads one row per hour, however many keys, reason codes and outcomes
 * the hour's rollup rows split it into. Sealed with them, from them, and as immutable.
 */
export const usageHourlyTotals = pgTable(
  "usage_hourly_totals",
  {
    accountId: text("account_id").notNull(),
    hourStart: tsz("hour_start").notNull(),
    ...summedMeasures(),
  },
  (t) => [primaryKey({ name: "usage_hourly_totals_pk", columns: [t.accountId, t.hourStart] })],
);

/** The same per UTC day, summed from the hours once the day is sealed: totals over long ranges. */
export const usageDailyRollup = pgTable(
  "usage_daily_rollup",
  { accountId: text("account_id").notNull(), dayStart: tsz("day_start").notNull(), ...usageRollupColumns() },
  (t) => [index("usage_daily_rollup_account_day_idx").on(t.accountId, t.dayStart)],
);

/**
 * Spend attribution (GET /auth/usage/breakdown, and the usage summary, list and export filtered by
 * tool, provider, OAuth client, model, run or channel): one row per account, completed UTC day,
 * dimension and value, with the day's measures. `dim` is one of tool, api_key, oauth_client, model,
 * run_id, channel, charge_outcome; `value` its value (null: events without one, e.g. a search has
 * no tool). Each event counts once in each dimension, so rows grow with the values seen per day,
 * never with their combinations (issue 51; docs/audit.md). The hours inside the day are kept as
 * running sums (`*_before_hour[i]`: the day's hours before hour i, i = 1..23, UTC) of the two
 * measures a bucket shows, so a bucket boundary of a time zone or an hour bucket splits a day
 * without reading its events. Written by the seal when a UTC day completes; immutable (trigger).
 */
export const usageSpendDay = pgTable(
  "usage_spend_day",
  {
    accountId: text("account_id").notNull(),
    dayStart: tsz("day_start").notNull(),
    dim: text("dim").notNull(),
    value: text("value"),
    ...summedMeasures(),
    eventsBeforeHour: bigint("events_before_hour", { mode: "number" }).array().notNull(),
    settledBeforeHour: numeric("settled_before_hour").array().notNull(),
  },
  (t) => [index("usage_spend_day_account_dim_day_idx").on(t.accountId, t.dim, t.dayStart, t.value)],
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

import { sql } from "drizzle-orm";
import { bigserial, boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, credits, tsz, updatedAt } from "./columns";

export const budgetScopes = ["account", "api_key", "oauth_client"] as const;
export type BudgetScope = (typeof budgetScopes)[number];
export const budgetPeriods = ["day", "week", "month", "none"] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

/**
 * A credit limit per period on an account, one of its API keys or one of its OAuth clients.
 * The counters belong to the period starting at `period_start` (computed by
 * `budget_period_start(period, time_zone, at)`): a statement that finds an older period starts
 * the new one at zero spend. `spent_credits` moves in the same statement as the consume ledger
 * row that spends it (each such row names the budget and period in `ledger_metadata.budgets`);
 * `reserved_credits` is held by Calls in flight (their `executions.budget_ids`).
 */
export const budgets = pgTable(
  "budgets",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    scope: text("scope", { enum: budgetScopes }).notNull(),
    /** The API key id or OAuth client id; '' for the account itself. */
    scopeId: text("scope_id").notNull().default(""),
    limitCredits: credits("limit_credits").notNull(),
    period: text("period", { enum: budgetPeriods }).notNull(),
    timeZone: text("time_zone").notNull().default("UTC"),
    periodStart: tsz("period_start"),
    spentCredits: credits("spent_credits").notNull().default("0"),
    reservedCredits: credits("reserved_credits").notNull().default("0"),
    /**
     * Spend already in the ledger when the budget was set, counted into the period that began at
     * `opening_period_start` (consume rows written before the budget existed carry no tag).
     */
    openingCredits: credits("opening_credits").notNull().default("0"),
    openingPeriodStart: tsz("opening_period_start"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("budgets_scope_uq").on(t.accountId, t.scope, t.scopeId),
    check("budgets_amounts_nonneg", sql`${t.limitCredits} >= 0 AND ${t.spentCredits} >= 0 AND ${t.reservedCredits} >= 0`),
  ],
);

/** Alert thresholds of an account: low balance, and the budget percentages that notify. */
export const alertSettings = pgTable("alert_settings", {
  accountId: text("account_id").primaryKey().references(() => accounts.id),
  lowBalanceCredits: credits("low_balance_credits"),
  budgetPercents: integer("budget_percents").array().notNull().default(sql`'{50,80,100}'::integer[]`),
  updatedAt: updatedAt(),
});

export const notificationKinds = ["low_balance", "budget_threshold", "budget_refusing", "credits_expiring", "payment_disputed", "payment_dispute_lost", "payment_unmatched", "auto_topup_failed", "auto_topup_limited", "webhook_test", "connection_needs_reauth"] as const;
export type NotificationKind = (typeof notificationKinds)[number];

/**
 * What the account is told (dashboard list and banner, and the source of webhook deliveries).
 * `claim_key` is unique: the statement whose settlement crossed a threshold inserts the row,
 * so each threshold fires once per period, whatever the number of instances or restarts.
 */
export const notifications = pgTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    kind: text("kind", { enum: notificationKinds }).notNull(),
    claimKey: text("claim_key").notNull(),
    payload: jsonb("payload").notNull().default({}),
    createdAt: createdAt(),
    readAt: tsz("read_at"),
  },
  (t) => [uniqueIndex("notifications_claim_uq").on(t.claimKey), index("notifications_account_created_idx").on(t.accountId, t.createdAt.desc())],
);

/** A webhook endpoint registered by an account owner. The signing secret is stored encrypted. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    url: text("url").notNull(),
    /** Event types delivered; empty = every type. */
    events: text("events").array().notNull().default(sql`'{}'::text[]`),
    secretCiphertext: text("secret_ciphertext").notNull(),
    allowPrivateNetwork: boolean("allow_private_network").notNull().default(false),
    createdAt: createdAt(),
    disabledAt: tsz("disabled_at"),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.accountId)],
);

export const webhookDeliveryStatuses = ["pending", "delivered", "failed"] as const;

/**
 * The durable outbox: one row per (notification, endpoint), inserted in the transaction that
 * created the notification; a worker sends it (Standard Webhooks signature, `id` = webhook-id)
 * and retries with exponential backoff for 24 h.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id").notNull().references(() => webhookEndpoints.id),
    accountId: text("account_id").notNull().references(() => accounts.id),
    notificationId: text("notification_id"),
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").notNull(),
    status: text("status", { enum: webhookDeliveryStatuses }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: tsz("next_attempt_at").notNull().defaultNow(),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    deliveredAt: tsz("delivered_at"),
  },
  (t) => [
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt.desc()),
  ],
);

/** Every delivery attempt: the delivery log shown to the owner. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id),
    attemptedAt: tsz("attempted_at").notNull().defaultNow(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attemptedAt)],
);

/**
 * Grants that expire: what is left of each (`remaining_credits`), drawn soonest-expiring first
 * within its kind before the kind's non-expiring credits. The sweeper writes an `expire_*` ledger
 * row for what is left at `expires_at` and sets `expired_at`. `id` is the grant's ledger row id.
 */
export const creditGrants = pgTable(
  "credit_grants",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    kind: text("kind", { enum: ["paid", "bonus", "reward"] }).notNull(),
    amountCredits: credits("amount_credits").notNull(),
    remainingCredits: credits("remaining_credits").notNull(),
    expiresAt: tsz("expires_at").notNull(),
    createdAt: createdAt(),
    expiredAt: tsz("expired_at"),
  },
  (t) => [
    index("credit_grants_live_idx").on(t.accountId, t.kind, t.expiresAt).where(sql`${t.expiredAt} IS NULL`),
    index("credit_grants_due_idx").on(t.expiresAt).where(sql`${t.expiredAt} IS NULL`),
    check("credit_grants_remaining_ok", sql`${t.remainingCredits} >= 0 AND ${t.remainingCredits} <= ${t.amountCredits}`),
  ],
);

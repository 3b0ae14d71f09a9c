import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { accounts } from "./accounts";
import { createdAt, credits, tsz } from "./columns";
import { usageChannels } from "./usage-events";

export const executionStatuses = ["reserved", "settled", "released"] as const;

/**
 * One Call. Inserted at reservation time (status `reserved`, with `reserved_credits` held on the
 * balance row until `reservation_expires_at`), then settled or released exactly once.
 */
export const executions = pgTable(
  "executions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    apiKeyId: uuid("api_key_id"),
    delegationJti: text("delegation_jti"),
    toolId: text("tool_id").notNull(),
    providerId: text("provider_id"),
    searchId: text("search_id"),
    sessionId: text("session_id").notNull(),
    model: text("model"),
    runId: text("run_id"),
    /** The OAuth client a delegation token was issued to (spend attribution). */
    oauthClientId: text("oauth_client_id"),
    /** How the Call arrived (REST or MCP): the sweeper's record of a released Call keeps it. */
    channel: text("channel", { enum: usageChannels }).notNull().default("api"),
    status: text("status", { enum: executionStatuses }).notNull(),
    reservedCredits: credits("reserved_credits").notNull().default("0"),
    reservationExpiresAt: tsz("reservation_expires_at"),
    parameters: jsonb("parameters"),
    success: boolean("success"),
    reasonCode: text("reason_code"),
    chargeOutcome: text("charge_outcome"),
    settledCredits: credits("settled_credits"),
    cacheHit: boolean("cache_hit").notNull().default(false),
    durationMs: integer("duration_ms"),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    /** The response returned to the client, replayed for an idempotent retry. */
    response: jsonb("response"),
    responseStatus: integer("response_status"),
    /** Budgets whose `reserved_credits` hold this Call's reservation (released at settlement). */
    budgetIds: text("budget_ids").array(),
    /** Credits given back by support refunds (never more than `settled_credits`). */
    refundedCredits: credits("refunded_credits").notNull().default("0"),
    createdAt: createdAt(),
    settledAt: tsz("settled_at"),
  },
  (t) => [
    // Partial where the column is mostly NULL (or the row is mostly settled): a Call writes fewer
    // index entries (its execution row is inserted, then updated by the settlement, which writes
    // an entry only in the indexes that hold settled rows: the primary key). No query reads
    // executions by account and time, and a settled or released execution is found by session
    // through its usage event (migration 0017, docs/call.md).
    index("executions_reserved_expiry_idx").on(t.reservationExpiresAt).where(sql`${t.status} = 'reserved'`),
    index("executions_reserved_session_idx").on(t.sessionId).where(sql`${t.status} = 'reserved'`),
    uniqueIndex("executions_idempotency_uq").on(t.accountId, t.idempotencyKey).where(sql`${t.idempotencyKey} IS NOT NULL`),
    index("executions_delegation_idx").on(t.delegationJti).where(sql`${t.delegationJti} IS NOT NULL`),
  ],
);

/** Credits charged under one delegation token: the cap is enforced with a conditional update. */
export const delegationSpend = pgTable(
  "delegation_spend",
  {
    jti: text("jti").primaryKey(),
    accountId: text("account_id").notNull(),
    maxCredits: credits("max_credits").notNull(),
    reservedCredits: credits("reserved_credits").notNull().default("0"),
    spentCredits: credits("spent_credits").notNull().default("0"),
    expiresAt: tsz("expires_at").notNull(),
    /** The token's `run_id`: an agent run's caps and their spend (GET /auth/runs). */
    runId: text("run_id"),
    createdAt: createdAt(),
  },
  (t) => [index("delegation_spend_account_run_idx").on(t.accountId, t.runId).where(sql`${t.runId} IS NOT NULL`)],
);

/**
 * The full content of a truncated or summarised Call result, behind its signed URL. In the
 * database (not a local disk), so every instance serves a URL any instance issued; removed by
 * the sweeper once expired.
 */
export const storedResults = pgTable(
  "stored_results",
  {
    executionId: text("execution_id").primaryKey(),
    content: text("content").notNull(),
    expiresAt: tsz("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("stored_results_expiry_idx").on(t.expiresAt)],
);

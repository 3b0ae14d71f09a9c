import { sql } from "drizzle-orm";
import { bigserial, check, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, credits } from "./columns";

export const ledgerEntryTypes = [
  "grant_payment_recharge",
  "grant_welcome_bonus",
  "grant_invitation_reward",
  "consume_tool_search",
  "consume_tool_execute",
  "consume_model_call",
  "consume_payment_refund",
  "expire_payment_recharge",
  "expire_welcome_bonus",
  "expire_invitation_reward",
  "refund_tool_execute",
] as const;
export type LedgerEntryType = (typeof ledgerEntryTypes)[number];

/**
 * The credits ledger: append-only (a trigger rejects UPDATE, DELETE and TRUNCATE).
 * `seq` orders an account's rows; each row's balance_before equals the previous row's balance_after.
 * It is above zero (migration 0030: a row numbered around the sequence is refused, and the signed
 * digests start from an account's lowest row anyway).
 */
export const creditsLedger = pgTable(
  "credits_ledger",
  {
    id: text("id").primaryKey(),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    entryType: text("entry_type", { enum: ledgerEntryTypes }).notNull(),
    amountCredits: credits("amount_credits").notNull(),
    sourceSystem: text("source_system").notNull(),
    sourceRefType: text("source_ref_type"),
    sourceRefId: text("source_ref_id"),
    executionId: text("execution_id"),
    usageEventId: uuid("usage_event_id"),
    apiKeyId: uuid("api_key_id"),
    preSettlementBill: jsonb("pre_settlement_bill"),
    settlementResult: jsonb("settlement_result"),
    balanceBefore: credits("balance_before").notNull(),
    balanceAfter: credits("balance_after").notNull(),
    ledgerMetadata: jsonb("ledger_metadata").notNull().default({}),
    description: text("description").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("ledger_account_created_idx").on(t.accountId, t.createdAt.desc(), t.seq.desc()),
    index("ledger_account_seq_idx").on(t.accountId, t.seq),
    index("ledger_account_type_created_idx").on(t.accountId, t.entryType, t.createdAt.desc()),
    index("ledger_execution_idx").on(t.executionId),
    // Audit reads (lib/audit): the event link of search charges, and amount bounds / largest amounts.
    index("ledger_usage_event_idx").on(t.usageEventId),
    index("ledger_account_abs_amount_idx").on(t.accountId, sql`abs(${t.amountCredits}) DESC`, t.createdAt.desc()),
    // Payments through Stripe (lib/payments/stripe-events.ts): one grant per payment whatever the
    // number of webhook deliveries, held by the database; and a payment's or reversal's rows by its id.
    uniqueIndex("ledger_stripe_grant_uq").on(t.sourceRefId).where(sql`${t.entryType} = 'grant_payment_recharge' AND ${t.sourceSystem} = 'stripe'`),
    index("ledger_stripe_ref_idx").on(t.sourceRefId).where(sql`${t.sourceSystem} = 'stripe'`),
    check("credits_ledger_seq_positive", sql`${t.seq} > 0`),
  ],
);

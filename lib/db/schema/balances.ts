import { check, pgTable, text } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { accounts } from "./accounts";
import { credits, updatedAt } from "./columns";

/**
 * One row per account: the balance of each credit kind and the credits currently reserved by
 * in-flight Calls. Available = paid + bonus + reward - reserved, never below zero.
 */
export const creditBalances = pgTable(
  "credit_balances",
  {
    accountId: text("account_id").primaryKey().references(() => accounts.id),
    paidCredits: credits("paid_credits").notNull().default("0"),
    bonusCredits: credits("bonus_credits").notNull().default("0"),
    rewardCredits: credits("reward_credits").notNull().default("0"),
    reservedCredits: credits("reserved_credits").notNull().default("0"),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("credit_balances_kinds_nonneg", sql`${t.paidCredits} >= 0 AND ${t.bonusCredits} >= 0 AND ${t.rewardCredits} >= 0`),
    check("credit_balances_reserved_ok", sql`${t.reservedCredits} >= 0 AND ${t.reservedCredits} <= ${t.paidCredits} + ${t.bonusCredits} + ${t.rewardCredits}`),
  ],
);

import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, tsz } from "./columns";

/** API keys are stored only as a SHA-256 hash; `prefix` is the visible start shown in listings. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    lastUsedAt: tsz("last_used_at"),
    revokedAt: tsz("revoked_at"),
    /** The user who created the key (null: the operator's CLI, or before members existed); the key stays with the account. */
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("api_keys_hash_uq").on(t.keyHash), index("api_keys_account_idx").on(t.accountId)],
);

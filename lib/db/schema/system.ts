import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, tsz } from "./columns";

/** Generated run-time secrets (auth secret), shared by every instance on the same database. */
export const appSecrets = pgTable("app_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

/** Asymmetric JWT signing keys. The newest active key signs; every non-retired key verifies. */
export const signingKeys = pgTable("signing_keys", {
  kid: text("kid").primaryKey(),
  alg: text("alg").notNull(),
  publicJwk: jsonb("public_jwk").notNull(),
  privateJwk: jsonb("private_jwk").notNull(),
  createdAt: createdAt(),
  retiredAt: tsz("retired_at"),
});

/** Every cross-account read by a support user is recorded here. */
export const supportAccessLog = pgTable(
  "support_access_log",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    targetAccountId: text("target_account_id"),
    resource: text("resource").notNull(),
    query: jsonb("query").notNull(),
    createdAt: createdAt(),
  },
  // Read per support user, and per account whose data was read (an owner's "who looked at my account").
  (t) => [index("support_access_user_idx").on(t.userId, t.createdAt), index("support_access_target_idx").on(t.targetAccountId, t.createdAt)],
);

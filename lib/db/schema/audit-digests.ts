import { bigint, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { updatedAt } from "./columns";

/**
 * Where the signed audit digests (lib/audit/digests.ts) have got to. The digests themselves live
 * outside the database; these rows only tell the writer where to continue. Anyone who can write
 * the database can change them, and `audit verify --digests` notices: it trusts the digests alone.
 */
export const auditDigestState = pgTable("audit_digest_state", {
  /** One row (1). */
  id: integer("id").primaryKey(),
  lastNumber: integer("last_number").notNull(),
  lastName: text("last_name").notNull(),
  lastSha256: text("last_sha256").notNull(),
  lastCreatedAt: timestamp("last_created_at", { withTimezone: true, mode: "date" }).notNull(),
  updatedAt: updatedAt(),
});

/** Per account and log (`ledger`, `activity`): the last row a digest signed, and the chained hash there. */
export const auditDigestHeads = pgTable(
  "audit_digest_heads",
  {
    accountId: text("account_id").notNull(),
    log: text("log", { enum: ["ledger", "activity"] }).notNull(),
    lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
    head: text("head").notNull(),
    digestNumber: integer("digest_number").notNull(),
  },
  (t) => [primaryKey({ name: "audit_digest_heads_pk", columns: [t.accountId, t.log] })],
);

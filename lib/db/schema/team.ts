import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { userRoles } from "../../vocab/roles";
import { accounts } from "./accounts";
import { createdAt, tsz } from "./columns";
import { users } from "./users";

/**
 * Who belongs to an account, and as what. A user may belong to several accounts (and switches
 * between them in the dashboard); the membership, not `users.role`, decides what they may do
 * there. Removing a member deletes the row: their sessions in the account end at the next request.
 */
export const accountMembers = pgTable(
  "account_members",
  {
    accountId: text("account_id").notNull().references(() => accounts.id),
    userId: text("user_id").notNull().references(() => users.id),
    role: text("role", { enum: userRoles }).notNull(),
    createdAt: createdAt(),
    invitedBy: text("invited_by"),
    lastSignedInAt: tsz("last_signed_in_at"),
  },
  (t) => [primaryKey({ name: "account_members_pk", columns: [t.accountId, t.userId] }), index("account_members_user_idx").on(t.userId)],
);

/**
 * Invitations to join an account: a single-use link (only the token's SHA-256 is kept) valid
 * until `expires_at`, used once (`accepted_at`) or revoked.
 */
export const accountInvitations = pgTable(
  "account_invitations",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    email: text("email").notNull(),
    role: text("role", { enum: userRoles }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by"),
    createdAt: createdAt(),
    expiresAt: tsz("expires_at").notNull(),
    acceptedAt: tsz("accepted_at"),
    acceptedBy: text("accepted_by"),
    revokedAt: tsz("revoked_at"),
  },
  (t) => [uniqueIndex("account_invitations_token_uq").on(t.tokenHash), index("account_invitations_account_idx").on(t.accountId, t.createdAt)],
);

/**
 * The account's activity log: every change to the account, append-only (a trigger rejects UPDATE,
 * DELETE and TRUNCATE), written in the transaction of the change. Rows of an account are numbered
 * by `seq` from 1 without gaps (above zero by constraint, migration 0030), and each row's `hash`
 * is the SHA-256 of the previous row's hash and its own content, so `audit verify` can prove the
 * log complete and unaltered.
 */
export const accountActivity = pgTable(
  "account_activity",
  {
    accountId: text("account_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    id: text("id").notNull(),
    createdAt: createdAt(),
    /** `user`, `api_key`, `operator` (the CLI), `support`, `system`. */
    actorType: text("actor_type").notNull(),
    actorId: text("actor_id"),
    actorLabel: text("actor_label"),
    action: text("action").notNull(),
    objectType: text("object_type"),
    objectId: text("object_id"),
    before: jsonb("before"),
    after: jsonb("after"),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    prevHash: text("prev_hash"),
    hash: text("hash").notNull(),
  },
  (t) => [
    primaryKey({ name: "account_activity_pk", columns: [t.accountId, t.seq] }),
    uniqueIndex("account_activity_id_uq").on(t.id),
    index("account_activity_account_created_idx").on(t.accountId, t.createdAt.desc(), t.seq.desc()),
    index("account_activity_action_idx").on(t.accountId, t.action, t.createdAt.desc()),
    check("account_activity_seq_positive", sql`${t.seq} > 0`),
  ],
);

/** Two-factor sign-in: one row per user who enrolled (`confirmed_at` set once a code was accepted). */
export const userTotp = pgTable("user_totp", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id),
  /** The TOTP secret, encrypted with the application's secret (AES-256-GCM). */
  secretEncrypted: text("secret_encrypted").notNull(),
  createdAt: createdAt(),
  confirmedAt: tsz("confirmed_at"),
  /** The last time step accepted: a code is never accepted twice. */
  lastStep: bigint("last_step", { mode: "number" }),
});

/** Single-use recovery codes (SHA-256 of each), ten per enrolment. */
export const userRecoveryCodes = pgTable(
  "user_recovery_codes",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    codeHash: text("code_hash").notNull(),
    createdAt: createdAt(),
    usedAt: tsz("used_at"),
  },
  (t) => [primaryKey({ name: "user_recovery_codes_pk", columns: [t.userId, t.codeHash] })],
);

import { pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, tsz } from "./columns";

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: createdAt(),
  /** Set: every credential of the account is refused (403) on every instance at once; its data is kept. */
  disabledAt: tsz("disabled_at"),
  /** Set: every member must sign in with a second factor (TOTP) and enrol before anything else. */
  requireTwoFactorAt: tsz("require_two_factor_at"),
  /** Where the account calls from (set by the operator or an owner): tools that declare regions answer region_restricted elsewhere. */
  region: text("region"),
  /** Who may share a connection with the whole account: `owners` (default) or any `members`. */
  connectionSharing: text("connection_sharing", { enum: ["owners", "members"] }).notNull().default("owners"),
});

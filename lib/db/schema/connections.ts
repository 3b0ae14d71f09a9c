import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { providers } from "./providers";
import { createdAt, tsz, updatedAt } from "./columns";

export const connectionKinds = ["oauth2", "secret"] as const;
export type ConnectionKind = (typeof connectionKinds)[number];
export const connectionStatuses = ["active", "needs_reauth", "revoked"] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];

/**
 * A user's (or, shared, an account's) credential at a third-party provider: OAuth tokens from the
 * connect flow, or a secret the user pasted. Token columns hold vault ciphertexts (lib/vault),
 * never plain values. One connection per owner and provider: reconnecting replaces its tokens.
 */
export const connections = pgTable(
  "connections",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    /** Whose connection it is; null: shared with the whole account. */
    userId: text("user_id"),
    providerId: text("provider_id").notNull().references(() => providers.id),
    kind: text("kind", { enum: connectionKinds }).notNull(),
    scopes: text("scopes").array().notNull().default([]),
    status: text("status", { enum: connectionStatuses }).notNull().default("active"),
    /** Why the status is what it is (a refused refresh, a disconnect): shown beside it. */
    statusReason: text("status_reason"),
    accessToken: text("access_token"),
    refreshToken: text("refresh_token"),
    /** When the access token expires (null: the provider did not say, or a pasted secret). */
    expiresAt: tsz("expires_at"),
    /** Bumped at every token change: a Call that waited for a refresh sees whether another made it. */
    tokenVersion: integer("token_version").notNull().default(0),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    lastUsedAt: tsz("last_used_at"),
    lastRefreshedAt: tsz("last_refreshed_at"),
  },
  (t) => [
    uniqueIndex("connections_owner_uq").on(t.accountId, t.providerId, sql`coalesce(${t.userId}, '')`),
    index("connections_user_idx").on(t.userId),
  ],
);

/**
 * A connect flow in progress: single-use (deleted as the callback reads it), short-lived, bound to
 * the user, account and provider that started it. Stored by the SHA-256 of the state sent to the
 * provider; the PKCE verifier is a vault ciphertext.
 */
export const connectionStates = pgTable(
  "connection_states",
  {
    stateHash: text("state_hash").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    userId: text("user_id").notNull(),
    providerId: text("provider_id").notNull().references(() => providers.id),
    shared: boolean("shared").notNull().default(false),
    scopes: text("scopes").array().notNull().default([]),
    codeVerifier: text("code_verifier").notNull(),
    /** A path of the dashboard the browser returns to after the callback. */
    returnTo: text("return_to"),
    expiresAt: tsz("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("connection_states_expiry_idx").on(t.expiresAt)],
);

/** The operator's registration of Tollgate with a provider's OAuth server (the client secret a vault ciphertext). */
export const providerOauthApps = pgTable("provider_oauth_apps", {
  providerId: text("provider_id")
    .primaryKey()
    .references(() => providers.id),
  clientId: text("client_id").notNull(),
  clientSecret: text("client_secret"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

import { boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, tsz } from "./columns";

export const oauthClients = pgTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  type: text("type", { enum: ["public", "confidential"] }).notNull(),
  /** SHA-256 of the generated high-entropy secret; compared in constant time. */
  secretHash: text("secret_hash"),
  redirectUris: text("redirect_uris").array().notNull().default([]),
  grantTypes: text("grant_types").array().notNull().default([]),
  resources: text("resources").array().notNull().default([]),
  isAgentRuntime: boolean("is_agent_runtime").notNull().default(false),
  isResourceServer: boolean("is_resource_server").notNull().default(false),
  createdAt: createdAt(),
});

export const oauthAuthorizationCodes = pgTable("oauth_authorization_codes", {
  codeHash: text("code_hash").primaryKey(),
  clientId: text("client_id").notNull(),
  userId: text("user_id").notNull(),
  accountId: text("account_id").notNull(),
  redirectUri: text("redirect_uri").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  scope: text("scope").notNull(),
  resource: text("resource"),
  expiresAt: tsz("expires_at").notNull(),
  usedAt: tsz("used_at"),
  /** What the code was exchanged for: a reused code revokes these (RFC 6749 section 4.1.2). */
  accessTokenJti: text("access_token_jti"),
  accessExpiresAt: tsz("access_expires_at"),
  refreshFamilyId: text("refresh_family_id"),
  createdAt: createdAt(),
});

export const oauthDeviceCodes = pgTable(
  "oauth_device_codes",
  {
    deviceCodeHash: text("device_code_hash").primaryKey(),
    userCode: text("user_code").notNull(),
    clientId: text("client_id").notNull(),
    scope: text("scope").notNull(),
    resource: text("resource"),
    status: text("status", { enum: ["pending", "approved", "denied", "consumed"] }).notNull().default("pending"),
    userId: text("user_id"),
    accountId: text("account_id"),
    intervalSeconds: integer("interval_seconds").notNull().default(5),
    lastPolledAt: tsz("last_polled_at"),
    expiresAt: tsz("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("oauth_device_user_code_uq").on(t.userCode)],
);

export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    familyId: text("family_id").notNull(),
    clientId: text("client_id").notNull(),
    userId: text("user_id").notNull(),
    accountId: text("account_id").notNull(),
    scope: text("scope").notNull(),
    resource: text("resource"),
    rotatedAt: tsz("rotated_at"),
    revokedAt: tsz("revoked_at"),
    expiresAt: tsz("expires_at").notNull(),
    /** The access token issued together with this refresh token: revoking the family revokes it too. */
    accessTokenJti: text("access_token_jti"),
    accessExpiresAt: tsz("access_expires_at"),
    createdAt: createdAt(),
  },
  (t) => [index("oauth_refresh_family_idx").on(t.familyId)],
);

/** Revoked access-token ids (`jti`), kept until the token would have expired anyway. */
export const revokedTokens = pgTable("revoked_tokens", {
  jti: text("jti").primaryKey(),
  expiresAt: tsz("expires_at").notNull(),
  revokedAt: createdAt(),
});

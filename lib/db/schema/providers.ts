import { boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, updatedAt } from "./columns";

export const providerTransports = ["builtin", "http", "mcp", "none"] as const;
export type ProviderTransport = (typeof providerTransports)[number];

/**
 * A provider offers tools. `none` marks catalog-only providers (imported descriptions without
 * an upstream): their tools are searchable and inspectable, and a Call answers tool_unavailable.
 */
export const providers = pgTable(
  "providers",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    i18n: jsonb("i18n").notNull().default({}),
    categories: text("categories").array().notNull().default([]),
    transport: text("transport", { enum: providerTransports }).notNull(),
    baseUrl: text("base_url"),
    auth: jsonb("auth"),
    /** How users connect their own credentials (OAuth 2.0 endpoints, or a pasted secret); null: the server's secret only. */
    connection: jsonb("connection"),
    /** Regions where the provider's tools may be called (null: everywhere). */
    regions: text("regions").array(),
    allowPrivateNetwork: boolean("allow_private_network").notNull().default(false),
    source: text("source"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("providers_source_idx").on(t.source)],
);

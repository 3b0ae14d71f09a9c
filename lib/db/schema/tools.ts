import { bigint, boolean, check, index, integer, jsonb, pgTable, real, text } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { providers } from "./providers";
import { createdAt, tsz, updatedAt } from "./columns";

export const toolStatuses = ["active", "retired"] as const;

/**
 * A callable capability (contract 2.1). Texts are stored in the catalog's own language plus
 * `i18n` ({ en: {name, description}, zh: {...} }); `params` keeps the contract's parameter list.
 */
export const tools = pgTable(
  "tools",
  {
    id: text("id").primaryKey(),
    providerId: text("provider_id").notNull().references(() => providers.id),
    name: text("name").notNull(),
    description: text("description").notNull(),
    lang: text("lang").notNull().default("en"),
    i18n: jsonb("i18n").notNull().default({}),
    category: text("category"),
    params: jsonb("params").notNull().default([]),
    oneOfRequired: jsonb("one_of_required"),
    examples: jsonb("examples"),
    expectedCost: text("expected_cost"),
    billingRule: jsonb("billing_rule"),
    successRate: real("success_rate"),
    avgExecutionTimeMs: real("avg_execution_time_ms"),
    status: text("status", { enum: toolStatuses }).notNull().default("active"),
    /** Transport-specific execution settings (http request mapping, MCP tool name, builtin handler). */
    execution: jsonb("execution").notNull().default({}),
    timeoutMs: integer("timeout_ms").notNull().default(10000),
    /** Regions where this tool may be called (null: its provider's). */
    regions: text("regions").array(),
    cacheable: boolean("cacheable").notNull().default(false),
    cacheTtlSeconds: integer("cache_ttl_seconds").notNull().default(0),
    source: text("source"),
    /** Text the search index is built from (maintained by the catalog import). */
    searchText: text("search_text").notNull().default(""),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("tools_provider_idx").on(t.providerId),
    index("tools_source_status_idx").on(t.source, t.status),
  ],
);

/**
 * One row whose `version` triggers bump on every write to `tools` or `providers` (migration
 * 0002), in the writing transaction. Each instance's in-memory search index compares it with the
 * version it was built from, so a catalog change made anywhere reaches every instance.
 */
export const catalogState = pgTable(
  "catalog_state",
  {
    id: integer("id").primaryKey().default(1),
    version: bigint("version", { mode: "number" }).notNull().default(0),
    updatedAt: updatedAt(),
    /** When an instance last refreshed the tools' measured stats (lib/catalog/refresh-stats.ts). */
    statsRefreshedAt: tsz("stats_refreshed_at"),
  },
  (t) => [check("catalog_state_single_row", sql`${t.id} = 1`)],
);

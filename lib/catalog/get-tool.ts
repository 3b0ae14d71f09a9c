import { eq } from "drizzle-orm";
import { providers, tools } from "../db/schema";
import type { Db } from "../db/types";
import { toolIdPattern, type BillingRule, type ToolParam } from "./manifest";
import type { ToolTarget } from "../providers/types";

/** What Probe and Call need of a tool: its schema, price and how to reach its provider. */
export interface ToolRecord {
  id: string;
  name: string;
  status: "active" | "retired";
  params: ToolParam[];
  oneOfRequired: string[][] | undefined;
  billingRule: BillingRule | null;
  cacheable: boolean;
  cacheTtlSeconds: number;
  /** Regions where the tool may be called (its own, else its provider's); null: everywhere. */
  regions: string[] | null;
  target: ToolTarget;
}

/**
 * Tool ids are opaque but well-formed: anything else is "malformed" (rejected before any lookup),
 * distinct from a well-formed id that is unknown or retired.
 */
export const TOOL_ID_PATTERN = toolIdPattern;

/** Lookups are cached briefly: a catalog change reaches every instance within this time. */
const TTL_MS = 5_000;
const caches = new WeakMap<Db, Map<string, { record: ToolRecord | null; expiresAt: number }>>();

export function invalidateToolCache(db: Db): void {
  caches.delete(db);
}

export async function findTool(db: Db, toolId: string): Promise<ToolRecord | null> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  const hit = cache.get(toolId);
  if (hit && hit.expiresAt > Date.now()) return hit.record;
  const rows = await db
    .select({ tool: tools, provider: providers })
    .from(tools)
    .innerJoin(providers, eq(providers.id, tools.providerId))
    .where(eq(tools.id, toolId))
    .limit(1);
  const row = rows[0];
  const record: ToolRecord | null = row
    ? {
        id: row.tool.id,
        name: row.tool.name,
        status: row.tool.status,
        params: row.tool.params as ToolParam[],
        oneOfRequired: (row.tool.oneOfRequired as string[][] | null) ?? undefined,
        billingRule: (row.tool.billingRule as BillingRule | null) ?? null,
        cacheable: row.tool.cacheable,
        cacheTtlSeconds: row.tool.cacheTtlSeconds,
        regions: row.tool.regions ?? row.provider.regions ?? null,
        target: {
          toolId: row.tool.id,
          providerId: row.provider.id,
          transport: row.provider.transport,
          baseUrl: row.provider.baseUrl,
          auth: row.provider.auth as ToolTarget["auth"],
          connection: row.provider.connection as ToolTarget["connection"],
          allowPrivateNetwork: row.provider.allowPrivateNetwork,
          execution: row.tool.execution as Record<string, unknown>,
          timeoutMs: row.tool.timeoutMs,
        },
      }
    : null;
  if (cache.size > 20_000) cache.clear();
  cache.set(toolId, { record, expiresAt: Date.now() + TTL_MS });
  return record;
}

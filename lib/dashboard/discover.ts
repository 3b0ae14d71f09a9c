import type { z } from "zod";
import type { CapabilityParamSchema, CapabilityResult, InspectResponse, RoutingCard, SearchResponse } from "../search/schemas";
import type { Locale } from "./i18n";
import { keyPost } from "./key-client";

/** Discover (`POST /search`) and Inspect (`POST /tools/by-ids`) with the picked API key. */
export type { CapabilityResult, InspectResponse, RoutingCard, SearchResponse };
export type CapabilityParam = z.infer<typeof CapabilityParamSchema>;

export const searchViews = ["full", "routing"] as const;
export type SearchView = (typeof searchViews)[number];
export const searchLimits = [5, 10, 20, 50, 100] as const;

export interface SearchInput {
  query: string;
  limit: number;
  view: SearchView;
  lang: Locale;
  sessionId: string;
}

export function isRoutingCard(result: CapabilityResult | RoutingCard): result is RoutingCard {
  return "capability" in result;
}

export async function discover(apiKey: string, input: SearchInput, signal?: AbortSignal): Promise<SearchResponse> {
  const res = await keyPost<SearchResponse>(
    "/search",
    { apiKey, signal, body: { query: input.query, limit: input.limit, view: input.view, lang: input.lang, session_id: input.sessionId } },
    [402],
  );
  return res.body;
}

export async function inspect(
  apiKey: string,
  input: { toolIds: string[]; view?: "full" | "lean"; lang: Locale; searchId?: string | null; sessionId?: string },
  signal?: AbortSignal,
): Promise<InspectResponse> {
  const res = await keyPost<InspectResponse>("/tools/by-ids", {
    apiKey,
    signal,
    body: {
      tool_ids: input.toolIds,
      view: input.view ?? "full",
      lang: input.lang,
      ...(input.searchId ? { search_id: input.searchId } : {}),
      ...(input.sessionId ? { session_id: input.sessionId } : {}),
    },
  });
  return res.body;
}

/** What one Call of a tool costs before it runs, as far as its billing rule says (no rule: free, as Call treats it). */
export function listPrice(result: Pick<CapabilityResult, "billing_rule">): { free: boolean; variable: boolean; amount: number } {
  const rule = result.billing_rule;
  if (!rule || rule.unit === "free" || rule.amount_credits === 0) return { free: true, variable: false, amount: 0 };
  return { free: false, variable: rule.unit !== "call", amount: rule.amount_credits };
}

/** The caller's own account at a provider that a tool acts with (Discover/Inspect's `requires_connection`, docs/connections.md). */
export type RequiredConnection = NonNullable<CapabilityResult["requires_connection"]>;

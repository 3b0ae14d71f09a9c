// How a catalog tool is shown to a client: the full capability result (contract 2.1), its lean
// form for Inspect, and the compact routing card of `view=routing`. Texts come in the requested
// language when the catalog has them (`i18n.<lang>`), else in the tool's own language.
import type { CatalogTool } from "./catalog-index";
import { own } from "../own";
import { firstSentence } from "./first-sentence";
import { regionAllows } from "../accounts/region";
import type { CapabilityResult, RoutingCard, SearchLang } from "./schemas";

function texts(tool: CatalogTool, lang: SearchLang) {
  const local = tool.i18n[lang];
  return {
    name: local?.name || tool.name,
    description: local?.description || tool.description,
    paramDescription: (name: string, base: string) => own(local?.params, name) || base,
    providerName: tool.providerI18n[lang]?.name || tool.providerName,
  };
}

/**
 * `accountRegion`: the caller's account's region (null: none set), to mark tools it may not call;
 * undefined leaves the mark out.
 */
export function capabilityResult(tool: CatalogTool, lang: SearchLang, view: "full" | "lean" = "full", accountRegion?: string | null): CapabilityResult {
  const t = texts(tool, lang);
  const lean = view === "lean";
  const result: CapabilityResult = {
    tool_id: tool.id,
    name: t.name,
    description: lean ? firstSentence(t.description) : t.description,
    provider_name: t.providerName,
    provider_id: tool.providerId,
    category: tool.category,
    params: tool.params.map((p) =>
      lean
        ? { name: p.name, type: p.type, required: p.required, ...(p.enum && { enum: p.enum }) }
        : { ...p, description: t.paramDescription(p.name, p.description) },
    ),
  };
  if (tool.oneOfRequired) result.one_of_required = tool.oneOfRequired;
  if (tool.expectedCost) result.expected_cost = tool.expectedCost;
  if (tool.billingRule) result.billing_rule = tool.billingRule;
  if (tool.connection) result.requires_connection = { provider_id: tool.providerId, provider_name: t.providerName, ...tool.connection };
  if (tool.regions) {
    result.regions = tool.regions;
    if (accountRegion !== undefined) result.region_restricted = !regionAllows(tool.regions, accountRegion);
  }
  if (!lean) {
    if (tool.examples) result.examples = tool.examples;
    result.stats = { avg_execution_time_ms: tool.avgExecutionTimeMs, success_rate: tool.successRate };
  }
  return result;
}

export function routingCard(tool: CatalogTool, lang: SearchLang): RoutingCard {
  const t = texts(tool, lang);
  return {
    tool_id: tool.id,
    capability: `${t.name}: ${firstSentence(t.description)}`,
    cost_class: costClass(tool),
    reliability: tool.successRate,
    as_of_support: tool.updatedAt.toISOString(),
  };
}

/** Price band of a tool; no billing rule means the tool is free (as Call treats it). */
export function costClass(tool: Pick<CatalogTool, "billingRule">): RoutingCard["cost_class"] {
  const rule = tool.billingRule;
  if (!rule || rule.unit === "free" || rule.amount_credits === 0) return "free";
  if (rule.unit === "per_unit") return "variable";
  if (rule.amount_credits <= 1) return "low";
  return rule.amount_credits <= 10 ? "medium" : "high";
}

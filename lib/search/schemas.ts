// Discover and Inspect shapes (contract 2.1-2.3), written once: they validate requests, type the
// domain verbs' results and describe the operations in OpenAPI.
import { z } from "@hono/zod-openapi";

export const searchLangs = ["en", "zh"] as const;
export type SearchLang = (typeof searchLangs)[number];

const primitive = z.union([z.string(), z.number(), z.boolean()]);

export const CapabilityParamSchema = z
  .object({
    name: z.string(),
    type: z.string(),
    required: z.boolean(),
    description: z.string().optional().openapi({ description: "In the requested language when the catalog has it" }),
    enum: z.array(primitive).optional(),
    default: z.unknown().optional(),
    items: z.object({ type: z.string(), enum: z.array(primitive).optional(), properties: z.array(z.string()).optional() }).optional(),
    properties: z.array(z.string()).optional().openapi({ description: "Known field names of an object parameter" }),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    max_length: z.number().optional(),
    json_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "Extension (full view): the parameter's whole JSON Schema where it nests objects (an imported OpenAPI body); Probe and Call hold values to it" }),
  })
  .openapi("CapabilityParam");

export const BillingRuleResultSchema = z
  .object({
    unit: z.string().openapi({ description: "`free`, `call` or `per_unit`" }),
    amount_credits: z.number(),
    quantity_from: z.string().optional(),
    quantity_param: z.string().optional(),
    unit_size: z.number().optional(),
    max_units: z.number().optional(),
  })
  .openapi("BillingRule");

export const MatchSchema = z
  .object({
    fields: z
      .record(z.string(), z.array(z.string()))
      .openapi({ description: "Per field (`name`, `description`, `params`, `paramText`, `examples`, `category`, `provider`): the request's words it contains" }),
    expanded: z.array(z.string()).openapi({ description: "Matched words that are not the request's own: synonyms, translations, typo corrections, as the catalog spells them" }),
    needed_by: z.string().optional().openapi({ description: "Ranked as the producer of a required input of this tool (a tool chain)" }),
  })
  .openapi("SearchMatch");

export const CapabilityResultSchema = z
  .object({
    tool_id: z.string(),
    name: z.string(),
    description: z.string(),
    provider_name: z.string(),
    provider_id: z.string().openapi({ description: "Extension: the provider's id, as listed by GET /providers" }),
    category: z.string().nullable().optional(),
    params: z.array(CapabilityParamSchema),
    one_of_required: z.array(z.array(z.string())).optional(),
    examples: z.object({ sample_parameters: z.record(z.string(), z.unknown()) }).optional(),
    expected_cost: z.string().optional(),
    billing_rule: BillingRuleResultSchema.optional(),
    stats: z
      .object({ avg_execution_time_ms: z.number().nullable(), success_rate: z.number().nullable() })
      .optional()
      .openapi({ description: "Historical figures; null when not yet measured. Left out of `view=lean`." }),
    match: MatchSchema.optional().openapi({ description: "Extension, Discover `view=full` only: why the tool ranked where it did" }),
    requires_connection: z
      .object({ provider_id: z.string(), provider_name: z.string(), kind: z.enum(["oauth2", "secret"]), scopes: z.array(z.string()) })
      .optional()
      .openapi({ description: "Extension: the tool acts as the caller at the provider; a Call without the caller's connection answers oauth_signin_required with a signin_url" }),
    regions: z.array(z.string()).optional().openapi({ description: "Extension: the regions where the tool may be called" }),
    region_restricted: z.boolean().optional().openapi({ description: "Extension: true when the caller's account is outside `regions` (a Call answers region_restricted)" }),
  })
  .openapi("CapabilityResult");
export type CapabilityResult = z.infer<typeof CapabilityResultSchema>;

export const costClasses = ["free", "low", "medium", "high", "variable"] as const;

export const RoutingCardSchema = z
  .object({
    tool_id: z.string(),
    capability: z.string().openapi({ description: "What the tool does, one line in the requested language: `name: first sentence of the description`" }),
    cost_class: z.enum(costClasses).openapi({
      description:
        "`free` (no charge), `low` (≤ 1 credit per call), `medium` (≤ 10), `high` (> 10), `variable` (per-unit pricing: depends on the input or result size)",
    }),
    reliability: z.number().nullable().openapi({ description: "Historical success rate 0..1 (stats.success_rate); null when not yet measured" }),
    as_of_support: z.string().openapi({
      description: "ISO-8601 time of the tool's last catalog update: the card's availability, cost and reliability hold as of then",
    }),
  })
  .openapi("RoutingCard");
export type RoutingCard = z.infer<typeof RoutingCardSchema>;

/**
 * Request bodies are not named components: openapi-typescript reads a property with a default as
 * optional only inside an operation's requestBody, so a generated client need not send `limit`.
 */
export const SearchRequestSchema = z
  .object({
    query: z.string().trim().min(1).max(4000).openapi({ description: "Natural-language capability query; a full tool_id gives a deterministic exact lookup first" }),
    limit: z.number().int().min(1).max(100).default(20),
    session_id: z.string().max(200).optional(),
    view: z.enum(["full", "routing"]).default("full"),
    lang: z.enum(searchLangs).optional().openapi({ description: "Absent: negotiated from Accept-Language (zh or en, default en)" }),
    source: z.string().min(1).max(200).optional().openapi({
      description:
        "Extension: search only the tools imported from this catalog source (e.g. `acebench-en`), ranked as a catalog of its own; a source no active tool comes from answers 404 naming it",
    }),
  });
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

export const SearchResponseSchema = z
  .object({
    query: z.string(),
    search_id: z.string(),
    total: z.number().int().openapi({ description: "Number of results returned" }),
    results: z.array(z.union([CapabilityResultSchema, RoutingCardSchema])),
    elapsed_time_ms: z.number(),
    remaining_credits: z.number().nullable(),
    error_message: z.string().nullable(),
  })
  .openapi("SearchResponse");
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

export const InspectRequestSchema = z
  .object({
    tool_ids: z.array(z.string().min(1).max(200)).min(1).max(100),
    search_id: z.string().max(200).optional(),
    session_id: z.string().max(200).optional(),
    view: z.enum(["full", "lean"]).default("full").openapi({
      description: "`lean` leaves out examples, stats and per-parameter detail beyond name, type, required and enum",
    }),
    lang: z.enum(searchLangs).optional().openapi({ description: "Extension; absent: negotiated from Accept-Language" }),
  });
export type InspectRequest = z.infer<typeof InspectRequestSchema>;

export const InspectResponseSchema = z
  .object({
    search_id: z.string().optional().openapi({ description: "The request's search_id; absent when the request had none (contract 2.3: when available)" }),
    total: z.number().int(),
    results: z.array(CapabilityResultSchema),
    unknown_tool_ids: z.array(z.string()).openapi({
      description: "Requested ids that are not in the catalog or are retired, in request order: re-run Discover for them",
    }),
    elapsed_time_ms: z.number(),
    remaining_credits: z.number().nullable(),
    error_message: z.string().nullable(),
  })
  .openapi("InspectResponse");
export type InspectResponse = z.infer<typeof InspectResponseSchema>;

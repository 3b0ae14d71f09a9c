import { z } from "@hono/zod-openapi";
import { chargeOutcomes, usageChannels, usageEventTypes } from "../db/schema";
import { invalidInput } from "../errors";
import { type BreakdownDimension, type BreakdownFilters, breakdownBuckets, breakdownDimensions } from "./breakdown";
import { TZ_DESCRIPTION, attributionFilterFields, attributionFilters } from "./query-schemas";
import { usageKinds } from "./usage-filters";

/** GET /auth/usage/breakdown (and its CSV export): the window, the grouping and the filters the spend rollup answers. */
export const BreakdownQuery = z.object({
  start_date: z.string().max(64).optional().openapi({ description: "Start of the window (inclusive): YYYY-MM-DD or an ISO-8601 datetime. Without dates: the last 30 days." }),
  end_date: z.string().max(64).optional().openapi({ description: "End of the window (inclusive; a date-only end_date covers that whole day)" }),
  group_by: z
    .string()
    .min(1)
    .max(64)
    .openapi({ description: `One or two dimensions, comma-separated: ${breakdownDimensions.join(", ")}`, example: "tool,api_key" }),
  bucket: z.enum(breakdownBuckets).optional().openapi({ description: "Also split each group over time: hour, day, week or month (in tz)" }),
  tz: z.string().max(64).optional().openapi({ description: TZ_DESCRIPTION }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: "Groups returned, 1 to 100 (default 20), by settled credits; the rest are summed in one `other` group" }),
  event_type: z.enum(usageEventTypes).optional(),
  kind: z.enum(Object.keys(usageKinds) as [keyof typeof usageKinds, ...(keyof typeof usageKinds)[]]).optional(),
  success: z.stringbool({ truthy: ["true", "1"], falsy: ["false", "0"] }).optional().openapi({ type: "boolean" }),
  charge_outcome: z.enum(chargeOutcomes).optional(),
  channel: z.enum(usageChannels).optional().openapi({ description: "`api` (REST) or `mcp`" }),
  api_key_id: z.guid().optional(),
  ...attributionFilterFields,
  account_id: z.string().max(64).optional().openapi({ description: "Support users only: the account to read (each read is logged)" }),
});
export type BreakdownQueryInput = z.infer<typeof BreakdownQuery>;

export function parseGroupBy(raw: string): BreakdownDimension[] {
  const dims = raw.split(",").map((d) => d.trim()).filter((d) => d !== "");
  const unknown = dims.find((d) => !(breakdownDimensions as readonly string[]).includes(d));
  if (unknown !== undefined) throw invalidInput(`Invalid group_by: "${unknown.slice(0, 32)}". Use one or two of ${breakdownDimensions.join(", ")}`);
  if (dims.length < 1 || dims.length > 2 || new Set(dims).size !== dims.length) {
    throw invalidInput(`Invalid group_by: "${raw.slice(0, 64)}". Use one or two different dimensions of ${breakdownDimensions.join(", ")}`);
  }
  return dims as BreakdownDimension[];
}

export function breakdownFilters(q: BreakdownQueryInput): BreakdownFilters {
  return {
    eventType: q.event_type,
    kind: q.kind,
    success: q.success,
    chargeOutcome: q.charge_outcome,
    channel: q.channel,
    apiKeyId: q.api_key_id,
    ...attributionFilters(q),
  };
}

const chargeOutcomeCounts = z.object({ charged: z.number(), included: z.number(), failed_not_charged: z.number(), failed_charged_review: z.number() });
const measures = {
  calls: z.number().openapi({ description: "Usage events (Discover and Inspect requests, Calls, model calls)" }),
  charged_calls: z.number().openapi({ description: "Events that cost credits: charged + failed_charged_review" }),
  charge_outcome_counts: chargeOutcomeCounts,
  pre_settlement_credits: z.number(),
  settled_credits: z.number().openapi({ description: "Credits consumed, as the ledger's consume rows" }),
  refunded_credits: z.number().openapi({ description: "Refunds made in the window of Calls in this group (whenever the Call was made)" }),
};
const dimensionRecord = z.partialRecord(z.enum(breakdownDimensions), z.string().nullable());

export const BreakdownSchema = z
  .object({
    start_date: z.string(),
    end_date: z.string(),
    tz: z.string(),
    group_by: z.array(z.enum(breakdownDimensions)),
    bucket: z.enum(breakdownBuckets).nullable(),
    limit: z.number(),
    group_count: z.number().openapi({ description: "Groups in the window before the ones past `limit` were folded into `other`" }),
    totals: z.object(measures),
    groups: z.array(
      z.object({
        key: dimensionRecord.openapi({ description: "The group's value of each dimension (an id; null: none, e.g. the tool of a search)" }),
        label: dimensionRecord.openapi({ description: "A name to show: the tool's, provider's, API key's (with its prefix) or client's; the value itself otherwise" }),
        other: z.boolean(),
        ...measures,
        buckets: z.array(z.object({ bucket_start: z.string(), calls: z.number(), settled_credits: z.number(), refunded_credits: z.number() })).optional(),
      }),
    ),
    buckets: z.array(z.object({ bucket_start: z.string(), bucket_start_local: z.string() })).nullable(),
  })
  .openapi("UsageBreakdown");

import { z } from "@hono/zod-openapi";

/**
 * An agent run (a delegation token's `run_id`) as `GET /auth/runs` returns it, written once: the
 * route's validation and description, lib/audit/runs.ts and the dashboard's Runs pages type with it.
 */

export const RunDelegationSchema = z
  .object({
    issued_at: z.string().openapi({ description: "ISO-8601: when the Agent Runtime exchanged the user's token for this one" }),
    expires_at: z.string(),
    max_credits: z.number().nullable().openapi({ description: "The token's cap (`max_credits` of the token exchange); null when none was set" }),
    spent_credits: z.number().openapi({ description: "Credits charged under this token (what the cap counts)" }),
    reserved_credits: z.number().openapi({ description: "Credits held by this token's Calls still in flight" }),
  })
  .openapi("RunDelegation");

export const RunItemSchema = z
  .object({
    run_id: z.string(),
    first_at: z.string().openapi({ description: "ISO-8601: the run's first usage event or delegation token, whichever came first" }),
    last_at: z.string().openapi({ description: "ISO-8601: its last usage event or delegation token (the list's order, newest first)" }),
    event_count: z.number().int().openapi({ description: "Usage events of the run (Discover, Inspect and Calls)" }),
    call_count: z.number().int().openapi({ description: "Its Calls (tool_execute and capabilities_query events)" }),
    charged_call_count: z.number().int().openapi({ description: "Calls with a charge (charged or failed_charged_review)" }),
    settled_credits: z.number().openapi({ description: "Sum of actual_amount_credits of the run's events" }),
    model: z.string().nullable().openapi({ description: "The model its latest event named" }),
    oauth_client_id: z.string().nullable().openapi({ description: "The OAuth client (Agent Runtime) of its latest event" }),
    oauth_client_name: z.string().nullable(),
    max_credits: z.number().nullable().openapi({ description: "The cap of the run's newest delegation token; null when it has none or the run came from no token" }),
    delegation_count: z.number().int().openapi({ description: "Delegation tokens issued for the run" }),
    delegations: z.array(RunDelegationSchema).openapi({ description: "Those tokens, newest first (at most 20), each with its cap and what was spent under it" }),
  })
  .openapi("RunItem");
export type RunItem = z.infer<typeof RunItemSchema>;

export const RunListSchema = z
  .object({
    items: z.array(RunItemSchema),
    total: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
  })
  .openapi("RunList");
export type RunList = z.infer<typeof RunListSchema>;

import { z } from "@hono/zod-openapi";
import { LedgerItemSchema } from "../../audit/schemas";
import { REFUND_REASON_MAX, type RefundFigures } from "../../billing/refund-execution";
import { credits, creditsToNumber, isCreditString } from "../../money";

/** The refund operations' shapes, written once: the routes validate and describe with them, the dashboard types with them. */
export const REFUNDS_EXTENSION =
  "Extension (not in the published contract): support refunds of `failed_charged_review` Calls, used by the dashboard's Executions page.";

export const RefundRequestSchema = z
  .object({
    amount_credits: z
      .union([z.number(), z.string()])
      .refine((v) => isCreditString(String(v)) && credits(String(v)).gt(0), "amount_credits must be a positive number of credits with at most 6 decimals")
      .optional()
      .openapi({ description: "Credits to give back, > 0 with at most 6 decimals (a string keeps it exact). Default: all that is left to refund" }),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(REFUND_REASON_MAX)
      .openapi({ description: "Why the charge is refunded: recorded on the refund ledger row, which the account's users see" }),
  })
  .openapi("RefundRequest");

export const ExecutionRefundStateSchema = z
  .object({
    execution_id: z.string(),
    account_id: z.string(),
    charge_outcome: z.string().nullable(),
    settled_credits: z.number().openapi({ description: "What the Call was charged" }),
    refunded_credits: z.number().openapi({ description: "What refunds have given back so far" }),
    refundable_credits: z.number().openapi({ description: "What can still be refunded (0 unless the charge outcome is failed_charged_review)" }),
  })
  .openapi("ExecutionRefundState");

export const RefundSchema = z
  .object({
    refund: LedgerItemSchema.openapi({ description: "The `refund_tool_execute` ledger row, linked to the Call's execution and usage event" }),
    execution: ExecutionRefundStateSchema,
  })
  .openapi("Refund");

export const RefundListSchema = z
  .object({
    items: z.array(LedgerItemSchema).openapi({ description: "The execution's refund ledger rows, oldest first" }),
    execution: ExecutionRefundStateSchema,
  })
  .openapi("RefundList");

export const ExecutionIdParams = z.object({ execution_id: z.string().min(1).max(200) });

/** Exact figures as JSON numbers, at the response boundary. */
export function refundStateItem(f: RefundFigures): z.infer<typeof ExecutionRefundStateSchema> {
  return {
    execution_id: f.execution_id,
    account_id: f.account_id,
    charge_outcome: f.charge_outcome,
    settled_credits: creditsToNumber(f.settled_credits),
    refunded_credits: creditsToNumber(f.refunded_credits),
    refundable_credits: creditsToNumber(f.refundable_credits),
  };
}

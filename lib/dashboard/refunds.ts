import type { z } from "zod";
import type { RefundRequestSchema, RefundSchema } from "../api/routes/execution-refunds-schemas";
import { apiData } from "./api-client";

/** `POST /api/v1/auth/executions/{execution_id}/refunds` (support users); types come from the API's own schemas. */
export type RefundRequest = z.input<typeof RefundRequestSchema>;
export type Refund = z.infer<typeof RefundSchema>;

export function refundExecution(executionId: string, body: RefundRequest): Promise<Refund> {
  return apiData<Refund>(`/auth/executions/${encodeURIComponent(executionId)}/refunds`, { method: "POST", body });
}

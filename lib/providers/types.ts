import type { ProviderAuth } from "../catalog/manifest";

/** Reason codes of contract section 7 that an execution can end with. */
export type ReasonCode =
  | "result.valid"
  | "result.partial_success"
  | "result.empty"
  | "provider.error"
  | "provider.http_error"
  | "provider.rate_limited"
  | "provider.auth_or_permission"
  | "transport.timeout"
  | "transport.no_response"
  | "transport.execution_failed"
  | "validation_error"
  | "tool_unavailable"
  // Extensions beyond the contract's list: Calls refused before execution (documented in docs/call.md).
  | "billing.insufficient_credits"
  | "billing.delegation_cap"
  | "billing.budget_exceeded"
  | "delegation.scope_denied";

/** What an adapter reports; settlement derives success, charge and charge outcome from it. */
export interface ProviderOutcome {
  reasonCode: ReasonCode;
  /** Result data (`result.data`); `{}` when the provider gave nothing usable. */
  data: unknown;
  errorMessage?: string;
  httpStatus?: number;
}

export interface ToolTarget {
  toolId: string;
  providerId: string;
  transport: "builtin" | "http" | "mcp" | "none";
  baseUrl: string | null;
  auth: ProviderAuth | null;
  allowPrivateNetwork: boolean;
  execution: Record<string, unknown>;
  timeoutMs: number;
}

export interface ProviderAdapter {
  execute(target: ToolTarget, parameters: Record<string, unknown>): Promise<ProviderOutcome>;
}

/** Successful outcomes are the ones a charge may follow. */
export function isSuccessful(reason: ReasonCode): boolean {
  return reason === "result.valid" || reason === "result.partial_success";
}

/** Empty data means "the provider responded without usable data" (result.empty, never charged). */
export function isEmptyData(data: unknown): boolean {
  if (data === null || data === undefined || data === "") return true;
  if (Array.isArray(data)) return data.length === 0;
  if (typeof data === "object") return Object.keys(data as object).length === 0;
  return false;
}

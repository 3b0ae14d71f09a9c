import type { ProviderAuth, ProviderConnection } from "../catalog/manifest";

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
  | "delegation.scope_denied"
  // Contract section 7 codes of Calls refused before execution.
  | "oauth_signin_required"
  | "region_restricted";

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
  /** How callers connect their own credential (null: the server's only). */
  connection: ProviderConnection | null;
  allowPrivateNetwork: boolean;
  execution: Record<string, unknown>;
  timeoutMs: number;
}

/** The caller's connection a Call acts with (lib/connections/call-access.ts). */
export interface CallConnection {
  /** The access token, or the pasted secret. */
  secret: string;
  /** Scopes granted (OAuth); null: a pasted secret, which any operation may use. */
  scopes: string[] | null;
  /** A pasted single value sent as basic credentials is `value:` (a user name, no password). */
  basicFromToken: boolean;
  /**
   * After an upstream 401: a refreshed access token (at most once per Call); `needs_reauth` when the
   * provider refused to renew the connection; null when it could not be renewed now.
   */
  refreshAfterUnauthorized?: () => Promise<{ token: string } | "needs_reauth" | null>;
}

export interface CallContext {
  connection?: CallConnection;
}

export interface ProviderAdapter {
  execute(target: ToolTarget, parameters: Record<string, unknown>, context?: CallContext): Promise<ProviderOutcome>;
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

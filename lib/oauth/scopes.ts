import { oauthError } from "./errors";

/**
 * The OAuth scopes of this server (the contract leaves them to us). A scope names a family of
 * operations; a token's `scope` claim is a space-separated subset (RFC 6749 section 3.3). Which
 * operation needs which scope is written once, in lib/api/access.ts.
 */
export const SCOPES = {
  "tools:read": "Discover, Inspect and Probe tools; list providers",
  "tools:execute": "Call tools, spending the account's credits",
  "usage:read": "Read the usage history",
  "ledger:read": "Read the credit balance and the credits ledger",
  "account:manage": "Manage the account: API keys, budgets, alerts, webhooks and refunds",
  "connections:manage": "Connect, list and disconnect your accounts at third-party providers (never their tokens)",
} as const;
export type Scope = keyof typeof SCOPES;

/** Every scope, in the order above: what an operator-issued or dashboard token carries. */
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** The scope a delegation token needs to be accepted at Call. */
export const CALL_SCOPE: Scope = "tools:execute";

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** Parses a space-delimited scope parameter; unknown or empty values are `invalid_scope`. */
export function parseScope(value: string): Scope[] {
  const parts = [...new Set(value.split(" ").filter(Boolean))];
  if (parts.length === 0) throw oauthError("invalid_scope", "scope must name at least one scope");
  const unknown = parts.filter((p) => !isScope(p));
  if (unknown.length > 0) {
    throw oauthError("invalid_scope", `Unknown scope ${unknown.map((u) => `"${u}"`).join(", ")}; supported: ${ALL_SCOPES.join(" ")}`);
  }
  return parts as Scope[];
}

export function formatScope(scopes: readonly string[]): string {
  return scopes.join(" ");
}

/** The scopes of `requested` that `granted` (a space-separated claim) does not include. */
export function missingScopes(requested: readonly string[], granted: string): string[] {
  const have = new Set(granted.split(" ").filter(Boolean));
  return requested.filter((s) => !have.has(s));
}

/** Whether `granted` (a space-separated claim) holds at least one of `anyOf`; an empty list asks for none. */
export function grantsAnyScope(anyOf: readonly string[], granted: string): boolean {
  return anyOf.length === 0 || anyOf.some((s) => missingScopes([s], granted).length === 0);
}

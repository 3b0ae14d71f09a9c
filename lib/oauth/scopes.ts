import { oauthError } from "./errors";

/**
 * The OAuth scopes of this server (the contract leaves them to us). A scope names a family of
 * operations; a token's `scope` claim is a space-separated subset (RFC 6749 section 3.3).
 */
export const SCOPES = {
  "tools:read": "Discover, Inspect and Probe tools; list providers",
  "tools:execute": "Call tools, spending the account's credits",
  "usage:read": "Read the usage history",
  "ledger:read": "Read the credit balance and the credits ledger",
} as const;
export type Scope = keyof typeof SCOPES;

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
    throw oauthError("invalid_scope", `Unknown scope ${unknown.map((u) => `"${u}"`).join(", ")}; supported: ${Object.keys(SCOPES).join(" ")}`);
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

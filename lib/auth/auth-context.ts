import type { AccessClaims } from "./jwt";

/** Who is calling: an API key, a user's JWT, or an agent's delegation token (RFC 8693). */
export type AuthContext =
  | { kind: "api_key"; accountId: string; apiKeyId: string }
  | { kind: "jwt"; accountId: string; userId: string; role: AccessClaims["role"]; claims: AccessClaims }
  | { kind: "delegation"; accountId: string; userId: string; claims: AccessClaims };

import { publicUrl } from "../env";

/** The authorization server's issuer identifier (RFC 8414): the public base URL. */
export function issuer(): string {
  return publicUrl();
}

/** The audience of access tokens for this API (RFC 8707 resource indicator). */
export function apiAudience(): string {
  return `${publicUrl()}/api/v1`;
}

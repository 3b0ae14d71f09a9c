/**
 * OAuth protocol errors. Like the domain errors of lib/errors.ts they know nothing about HTTP:
 * `lib/http/oauth-errors.ts` maps each code to its status and `OAuthErrorResponse` body. The set
 * is closed so that mapping is exhaustive.
 */
export type OAuthErrorCode =
  /** RFC 6749 5.2: missing parameter, repeated parameter, malformed request. */
  | "invalid_request"
  /** A parameter is present but breaks a bound of contract section 8 (lengths, counts, ranges). */
  | "invalid_parameter"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  /** An authenticated client asks for something its registration does not allow (introspection, revocation). */
  | "client_forbidden"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "insufficient_scope"
  | "invalid_target"
  /** RFC 8693 2.2.2: the subject token is invalid, expired, revoked or not an access token. */
  | "invalid_subject_token"
  | "authorization_pending"
  | "slow_down"
  | "expired_token"
  | "access_denied"
  | "rate_limited";

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "OAuthError";
  }
}

export const oauthError = (code: OAuthErrorCode, message: string) => new OAuthError(code, message);

/** The `error` value sent on the wire (RFC 6749 section 5.2, 4.1.2.1; RFC 8628; RFC 8707; RFC 6750). */
export function wireErrorCode(code: OAuthErrorCode): string {
  switch (code) {
    case "invalid_parameter":
    case "invalid_subject_token":
      return "invalid_request";
    case "client_forbidden":
      return "unauthorized_client";
    case "invalid_request":
    case "invalid_client":
    case "invalid_grant":
    case "unauthorized_client":
    case "unsupported_grant_type":
    case "invalid_scope":
    case "insufficient_scope":
    case "invalid_target":
    case "authorization_pending":
    case "slow_down":
    case "expired_token":
    case "access_denied":
    case "rate_limited":
      return code;
  }
}

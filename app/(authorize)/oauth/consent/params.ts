import type { AuthorizationRequestParams } from "@/lib/oauth/authorize";

const NAMES = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "resource"] as const;

/** The authorization request's parameters from a query or a form; anything else is dropped. */
export function authorizationParams(source: Record<string, string | string[] | undefined>): AuthorizationRequestParams {
  const params: AuthorizationRequestParams = {};
  for (const name of NAMES) {
    const value = source[name];
    if (typeof value === "string") params[name] = value;
  }
  return params;
}

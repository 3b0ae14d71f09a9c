import { decodeJwt } from "jose";
import type { Db } from "../db/types";
import { looksLikeJwt, verifyAccessToken, type AccessClaims } from "../auth/jwt";
import { DomainError } from "../errors";
import type { OAuthClient } from "./client-auth";
import { oauthError } from "./errors";

export interface ActiveIntrospection {
  active: true;
  scope: string;
  client_id?: string;
  token_type: "Bearer";
  token_use: AccessClaims["token_use"];
  sub: string;
  account_id: string;
  aud: string | string[];
  iss: string;
  exp: number;
  iat?: number;
  jti: string;
  model?: string;
  run_id?: string;
  max_credits?: number;
  tool_ids?: string[];
  provider_ids?: string[];
}

export type Introspection = ActiveIntrospection | { active: false };

const INACTIVE = { active: false } as const;

/**
 * RFC 7662 introspection for allow-listed Resource Servers. `resource` must be one the client is
 * registered for (else the request is refused) and the token's audience; a token that is invalid,
 * expired, revoked, for another audience or not an access token is exactly `{active: false}`.
 */
export async function introspectToken(db: Db, input: { client: OAuthClient; token: string; resource: string }): Promise<Introspection> {
  if (!input.client.isResourceServer) throw oauthError("client_forbidden", "Only registered Resource Server clients may introspect tokens");
  if (!input.client.resources.includes(input.resource)) {
    throw oauthError("client_forbidden", `This client is not registered for resource ${input.resource}`);
  }
  if (!looksLikeJwt(input.token)) return INACTIVE;
  let claims: AccessClaims;
  try {
    claims = await verifyAccessToken(db, input.token, input.resource);
  } catch (err) {
    if (err instanceof DomainError && err.code === "unauthorized") return INACTIVE;
    throw err;
  }
  // jose accepts an audience list that contains the resource; the contract asks for equality.
  const aud = decodeJwt(input.token).aud;
  if (aud !== input.resource && !(Array.isArray(aud) && aud.length === 1 && aud[0] === input.resource)) return INACTIVE;
  return {
    active: true,
    scope: claims.scope,
    ...(claims.client_id ? { client_id: claims.client_id } : {}),
    token_type: "Bearer",
    token_use: claims.token_use,
    sub: claims.sub,
    account_id: claims.acct,
    aud: input.resource,
    iss: claims.iss ?? "",
    exp: claims.exp,
    ...(claims.iat !== undefined ? { iat: claims.iat } : {}),
    jti: claims.jti,
    ...(claims.model !== undefined ? { model: claims.model } : {}),
    ...(claims.run_id !== undefined ? { run_id: claims.run_id } : {}),
    ...(claims.max_credits !== undefined ? { max_credits: claims.max_credits } : {}),
    ...(claims.tool_ids !== undefined ? { tool_ids: claims.tool_ids } : {}),
    ...(claims.provider_ids !== undefined ? { provider_ids: claims.provider_ids } : {}),
  };
}

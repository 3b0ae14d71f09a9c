import type { Db } from "../db/types";
import { delegationSpend } from "../db/schema";
import { issueAccessToken, verifyAccessToken, type AccessClaims } from "../auth/jwt";
import { apiAudience } from "../auth/issuer";
import { DomainError } from "../errors";
import type { OAuthClient } from "./client-auth";
import { oauthError } from "./errors";
import { resolveResource } from "./resources";
import { formatScope, missingScopes, parseScope } from "./scopes";

export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
/** Contract section 8: a delegation token lives at most 600 seconds. */
export const DELEGATION_TOKEN_MAX_TTL_SECONDS = 600;
/**
 * A delegation token without `max_credits` still gets a spend row (so its spend is tracked and
 * Call takes one code path); its cap is the largest value the credits column holds.
 */
export const UNCAPPED_DELEGATION_CREDITS = "99999999999999";

export interface DelegationRequest {
  client: OAuthClient;
  subjectToken: string;
  subjectTokenType: string;
  requestedTokenType?: string;
  resource: string;
  scope: string;
  model?: string;
  runId?: string;
  maxCredits?: number;
  toolIds?: string[];
  providerIds?: string[];
}

export interface TokenExchangeResponse {
  access_token: string;
  issued_token_type: typeof ACCESS_TOKEN_TYPE;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

/**
 * RFC 8693 token exchange: an Agent Runtime trades a user's access token for a short delegation
 * token, narrowed to a scope, an audience (RFC 8707), optional tool and provider lists and a
 * credit cap. It never outlives the subject token, never exceeds 600 s and never comes with a
 * refresh token; it carries the subject's `jti`, so it dies with it when that is revoked.
 */
export async function exchangeForDelegationToken(db: Db, input: DelegationRequest): Promise<TokenExchangeResponse> {
  if (!input.client.isAgentRuntime || input.client.type !== "confidential") {
    // The Agent Runtime flag is the registration for this grant; `grant_types` need not list it.
    throw oauthError("unauthorized_client", "Token exchange is reserved to registered confidential Agent Runtime clients");
  }
  if (input.subjectTokenType !== ACCESS_TOKEN_TYPE) throw oauthError("invalid_request", `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  if (input.requestedTokenType !== undefined && input.requestedTokenType !== ACCESS_TOKEN_TYPE) {
    throw oauthError("invalid_request", `requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  const requested = parseScope(input.scope);
  const audience = await resolveResource(db, input.client, input.resource);

  let subject: AccessClaims;
  try {
    subject = await verifyAccessToken(db, input.subjectToken, apiAudience());
  } catch (err) {
    if (err instanceof DomainError && err.code === "unauthorized") throw oauthError("invalid_subject_token", `subject_token: ${err.message}`);
    throw err;
  }
  if (subject.token_use !== "access") throw oauthError("invalid_subject_token", "subject_token must be a user access token, not a delegation token");
  const missing = missingScopes(requested, subject.scope);
  if (missing.length > 0) throw oauthError("insufficient_scope", `The subject token does not grant ${missing.join(" ")}`);

  const remaining = subject.exp - Math.floor(Date.now() / 1000);
  const ttl = Math.min(DELEGATION_TOKEN_MAX_TTL_SECONDS, remaining);
  if (ttl <= 0) throw oauthError("invalid_subject_token", "subject_token: Access token has expired");
  const scope = formatScope(requested);
  const issued = await issueAccessToken(db, {
    userId: subject.sub,
    accountId: subject.acct,
    role: subject.role,
    scope,
    ttlSeconds: ttl,
    audience,
    clientId: input.client.id,
    tokenUse: "delegation",
    extra: {
      ...(input.model !== undefined ? { model: input.model } : {}),
      ...(input.runId !== undefined ? { run_id: input.runId } : {}),
      ...(input.maxCredits !== undefined ? { max_credits: input.maxCredits } : {}),
      ...(input.toolIds?.length ? { tool_ids: input.toolIds } : {}),
      ...(input.providerIds?.length ? { provider_ids: input.providerIds } : {}),
      parent_jti: subject.jti,
    },
  });
  await db.insert(delegationSpend).values({
    jti: issued.jti,
    accountId: subject.acct,
    maxCredits: input.maxCredits !== undefined ? String(input.maxCredits) : UNCAPPED_DELEGATION_CREDITS,
    expiresAt: issued.expiresAt,
    runId: input.runId ?? null,
  });
  return { access_token: issued.accessToken, issued_token_type: ACCESS_TOKEN_TYPE, token_type: "Bearer", expires_in: issued.expiresIn, scope };
}

// Tollgate as an OAuth 2.0 client of third-party providers (authorization code with PKCE, refresh,
// RFC 7009 revocation), through openid-client. Every request to a provider's endpoints goes through
// the same outbound guard as Calls (lib/providers/outbound-fetch.ts): private and loopback
// addresses only where the provider may reach them.
import { eq } from "drizzle-orm";
import type { Configuration, CustomFetch, ServerMetadata, TokenEndpointResponse } from "openid-client";
import { lazySdk } from "../lazy-sdk";
import { providerOauthApps } from "../db/schema";
import type { Db } from "../db/types";
import type { ProviderConnection } from "../catalog/manifest";
import { outboundFetch } from "../providers/outbound-fetch";
import { privateUpstreamAllowList } from "../env";
import { open, seal } from "../vault/vault";

const openidClient = lazySdk(() => import("openid-client"));

export type OAuthConnection = Extract<ProviderConnection, { type: "oauth2" }>;

export interface OAuthProvider {
  id: string;
  connection: OAuthConnection;
  allowPrivateNetwork: boolean;
}

/** The provider cannot be connected as configured (no client registered, endpoints not https): the operator's to fix. */
export class ProviderNotConnectable extends Error {}

/** The operator has not registered Tollgate with the provider: no client id. */
export class NoOAuthApp extends ProviderNotConnectable {}

/** The provider refused a grant (`invalid_grant`, `invalid_client`, …): the connection needs the user again. */
export class GrantRefused extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** The provider could not be reached or answered something unusable: a retry may succeed. */
export class ProviderUnreachable extends Error {}

/** `TOLLGATE_OAUTH_<PROVIDER>_CLIENT_ID` / `_CLIENT_SECRET`: the provider id upper-cased, other characters as `_`. */
export function appEnvNames(providerId: string): { clientId: string; clientSecret: string } {
  const stem = `TOLLGATE_OAUTH_${providerId.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
  return { clientId: `${stem}_CLIENT_ID`, clientSecret: `${stem}_CLIENT_SECRET` };
}

const secretContext = (providerId: string) => `provider_oauth_apps.client_secret:${providerId}`;

/** The operator's client at the provider: registered with the CLI (secret in the vault), else from the environment. */
export async function oauthApp(db: Db, providerId: string): Promise<{ clientId: string; clientSecret?: string; source: "cli" | "env" } | null> {
  const [row] = await db.select().from(providerOauthApps).where(eq(providerOauthApps.providerId, providerId)).limit(1);
  if (row) return { clientId: row.clientId, clientSecret: row.clientSecret ? open(row.clientSecret, secretContext(providerId)) : undefined, source: "cli" };
  const names = appEnvNames(providerId);
  const clientId = process.env[names.clientId];
  if (!clientId) return null;
  return { clientId, clientSecret: process.env[names.clientSecret] || undefined, source: "env" };
}

/** Registers (or replaces) the operator's client at a provider; the secret is sealed in the vault. */
export async function setOauthApp(db: Db, providerId: string, clientId: string, clientSecret: string | undefined): Promise<void> {
  const sealed = clientSecret ? seal(clientSecret, secretContext(providerId)) : null;
  await db
    .insert(providerOauthApps)
    .values({ providerId, clientId, clientSecret: sealed })
    .onConflictDoUpdate({ target: providerOauthApps.providerId, set: { clientId, clientSecret: sealed, updatedAt: new Date() } });
}

export async function removeOauthApp(db: Db, providerId: string): Promise<boolean> {
  const gone = await db.delete(providerOauthApps).where(eq(providerOauthApps.providerId, providerId)).returning({ id: providerOauthApps.providerId });
  return gone.length > 0;
}

/** Sealed client secrets, for `vault rekey`. */
export const OAUTH_APP_SECRET_CONTEXT = secretContext;

/**
 * The client configuration for a provider: its endpoints (given, or read from its OpenID Connect
 * discovery document), the operator's client id and secret, and the guarded fetch.
 */
export async function clientConfiguration(db: Db, provider: OAuthProvider, options: { discoverRevocation?: boolean } = {}): Promise<Configuration> {
  const oc = await openidClient();
  const app = await oauthApp(db, provider.id);
  if (!app) {
    const names = appEnvNames(provider.id);
    throw new NoOAuthApp(`Tollgate is not registered with ${provider.id}'s OAuth server: the operator sets ${names.clientId} (and ${names.clientSecret}) or runs \`npm run cli -- connections register --provider ${provider.id}\``);
  }
  const c = provider.connection;
  const allowPrivate = provider.allowPrivateNetwork || privateUpstreamAllowList().has(provider.id);
  // Codes, tokens and the client secret travel to these: TLS, except for providers the operator lets reach private networks (local ones, tests).
  const plain = [c.authorization_url, c.token_url, c.revocation_url, c.openid_configuration_url].filter((u): u is string => u !== undefined && u.startsWith("http:"));
  if (plain.length > 0 && !allowPrivate) throw new ProviderNotConnectable(`${provider.id}'s OAuth endpoints must be https (${plain.join(", ")})`);
  const guarded = outboundFetch({ allowPrivateNetwork: allowPrivate });
  const fetch: CustomFetch = (url, options) => guarded(url, options as RequestInit);
  const auth =
    c.token_endpoint_auth === "none" || !app.clientSecret ? oc.None() : c.token_endpoint_auth === "client_secret_post" ? oc.ClientSecretPost(app.clientSecret) : oc.ClientSecretBasic(app.clientSecret);
  const insecure = (config: Configuration) => {
    // http endpoints are refused except where the provider may reach private addresses (local providers, tests).
    if (allowPrivate) oc.allowInsecureRequests(config);
  };
  let config: Configuration;
  if (c.openid_configuration_url) {
    const url = new URL(c.openid_configuration_url);
    try {
      config = await oc.discovery(url, app.clientId, undefined, auth, {
        [oc.customFetch]: fetch,
        execute: allowPrivate ? [oc.allowInsecureRequests] : [],
      });
    } catch (err) {
      throw new ProviderUnreachable(`The provider's OpenID Connect discovery document could not be read: ${(err as Error).message}`);
    }
    const meta = config.serverMetadata();
    // Endpoints the manifest names win over the discovered ones.
    if (c.authorization_url || c.token_url || c.revocation_url) {
      config = new oc.Configuration(
        { ...(meta as ServerMetadata), authorization_endpoint: c.authorization_url ?? meta.authorization_endpoint, token_endpoint: c.token_url ?? meta.token_endpoint, revocation_endpoint: c.revocation_url ?? meta.revocation_endpoint },
        app.clientId,
        undefined,
        auth,
      );
      insecure(config);
    }
  } else {
    let revocation = c.revocation_url;
    if (!revocation && options.discoverRevocation) {
      // OpenAPI's oauth2 flows name no revocation endpoint: the server's RFC 8414 metadata may.
      try {
        const found = await oc.discovery(new URL(new URL(c.authorization_url!).origin), app.clientId, undefined, auth, { algorithm: "oauth2", [oc.customFetch]: fetch, execute: allowPrivate ? [oc.allowInsecureRequests] : [] });
        revocation = found.serverMetadata().revocation_endpoint;
      } catch {
        // No metadata document: the provider offers no revocation Tollgate can find.
      }
    }
    config = new oc.Configuration(
      { issuer: new URL(c.authorization_url!).origin, authorization_endpoint: c.authorization_url, token_endpoint: c.token_url, revocation_endpoint: revocation },
      app.clientId,
      undefined,
      auth,
    );
    insecure(config);
  }
  config[oc.customFetch] = fetch;
  return config;
}

export interface AuthorizationRequest {
  url: string;
  codeVerifier: string;
}

/** The provider's authorization URL for `scopes`, with PKCE (S256) and the state. */
export async function authorizationRequest(config: Configuration, input: { redirectUri: string; scopes: string[]; state: string }): Promise<AuthorizationRequest> {
  const oc = await openidClient();
  const codeVerifier = oc.randomPKCECodeVerifier();
  const params: Record<string, string> = {
    redirect_uri: input.redirectUri,
    state: input.state,
    code_challenge: await oc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
  };
  if (input.scopes.length > 0) params.scope = input.scopes.join(" ");
  return { url: oc.buildAuthorizationUrl(config, params).href, codeVerifier };
}

export interface GrantedTokens {
  accessToken: string;
  refreshToken?: string;
  /** Absent: the provider did not say (`expires_in`). */
  expiresAt?: Date;
  /** The scopes granted when the provider says (`scope`), else undefined. */
  scopes?: string[];
}

function granted(tokens: TokenEndpointResponse): GrantedTokens {
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    expiresAt: typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000) : undefined,
    scopes: typeof tokens.scope === "string" ? tokens.scope.split(" ").filter(Boolean) : undefined,
  };
}

async function asGrantError(err: unknown): Promise<Error> {
  const oc = await openidClient();
  if (err instanceof oc.ResponseBodyError) return new GrantRefused(err.error, `the provider refused: ${err.error}${err.error_description ? ` (${err.error_description})` : ""}`);
  if (err instanceof oc.AuthorizationResponseError) return new GrantRefused(err.error, `the provider refused: ${err.error}${err.error_description ? ` (${err.error_description})` : ""}`);
  // openid-client wraps what failed beneath it (a refused connection, a body that is not JSON) as the cause.
  const cause = (err as Error).cause instanceof Error ? `: ${((err as Error).cause as Error).message}` : "";
  return new ProviderUnreachable(`the provider's token endpoint could not be used: ${(err as Error).message}${cause}`);
}

/** Exchanges the callback's code (the callback URL as the browser reached it) for tokens. */
export async function exchangeCode(config: Configuration, callbackUrl: URL, checks: { codeVerifier: string; state: string }): Promise<GrantedTokens> {
  const oc = await openidClient();
  try {
    return granted(await oc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: checks.codeVerifier, expectedState: checks.state, idTokenExpected: false }));
  } catch (err) {
    throw await asGrantError(err);
  }
}

export async function refreshGrant(config: Configuration, refreshToken: string): Promise<GrantedTokens> {
  const oc = await openidClient();
  try {
    return granted(await oc.refreshTokenGrant(config, refreshToken));
  } catch (err) {
    throw await asGrantError(err);
  }
}

/** RFC 7009 revocation where the provider has the endpoint; false when it has none. */
export async function revokeAtProvider(config: Configuration, token: string, hint: "access_token" | "refresh_token"): Promise<boolean> {
  const oc = await openidClient();
  if (!config.serverMetadata().revocation_endpoint) return false;
  await oc.tokenRevocation(config, token, { token_type_hint: hint });
  return true;
}

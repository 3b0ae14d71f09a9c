import * as oauth from "oauth4webapi";
import type { Database, Db } from "../db/types";
import { publicUrl } from "../env";
import { createOAuthClient, type CreateClientInput } from "../oauth/create-client";
import { startTestServer, type TestServer } from "./server";

/**
 * oauth4webapi against the real server. Issuer and endpoint URLs carry PUBLIC_URL (as in
 * production); the fetch hook sends each request to the test server's loopback address instead.
 */
export interface OAuthHarness {
  server: TestServer;
  as: oauth.AuthorizationServer;
  /** Options for every oauth4webapi request (route to the test server, allow http). */
  http: { [oauth.customFetch]: typeof fetch; [oauth.allowInsecureRequests]: true };
  /** A plain fetch of a PUBLIC_URL address, through the test server. */
  fetch: typeof fetch;
}

export async function startOAuthHarness(database: Database): Promise<OAuthHarness> {
  const server = await startTestServer(database);
  const origin = new URL(publicUrl()).origin;
  const routed: typeof fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return fetch(url.startsWith(origin) ? server.url + url.slice(origin.length) : url, init);
  };
  const http = { [oauth.customFetch]: routed, [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(publicUrl());
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...http }));
  return { server, as, http, fetch: routed };
}

export interface RegisteredClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret?: string;
}

/** Registers a client through the same verb as the CLI and returns it in oauth4webapi's terms. */
export async function registerClient(db: Db, input: CreateClientInput): Promise<RegisteredClient> {
  const created = await createOAuthClient(db, input);
  const secret = "client_secret" in created ? created.client_secret : undefined;
  return {
    client: { client_id: created.client_id },
    auth: secret ? oauth.ClientSecretBasic(secret) : oauth.None(),
    secret,
  };
}

/** An OAuth error as oauth4webapi reports it: status and `error` of the response body. */
export async function oauthFailure(promise: Promise<unknown>): Promise<{ status: number; error: string; description?: string }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) return { status: err.status, error: err.error, description: err.error_description };
    if (err instanceof oauth.WWWAuthenticateChallengeError) {
      const body = (await err.response.json()) as { error: string; error_description?: string };
      return { status: err.status, error: body.error, description: body.error_description };
    }
    throw err;
  }
  throw new Error("expected an OAuth error response");
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`;
}

export function form(fields: Record<string, string | string[]>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
  return body;
}

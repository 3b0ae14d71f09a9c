import type { z } from "zod";
import type {
  ConnectableProviderSchema,
  ConnectionListSchema,
  ConnectionSchema,
  ConnectionSharingSchema,
  CreateConnectionBodySchema,
  CreatedConnectionSchema,
  DisconnectedSchema,
} from "../api/routes/connections-schemas";
import type { UserRole } from "../vocab/roles";
import { apiData } from "./api-client";

/**
 * The Connections page's calls to `/api/v1/auth/connections` (docs/connections.md): a user's or
 * the account's own credentials at third-party providers, made by OAuth sign-in or a pasted
 * secret. Types come from the API's own schemas (type-only: nothing of the server ships).
 */
export type Connection = z.infer<typeof ConnectionSchema>;
export type ConnectionStatus = Connection["status"];
export type ConnectableProvider = z.infer<typeof ConnectableProviderSchema>;
export type ConnectionSharing = z.infer<typeof ConnectionSharingSchema>;
export type ConnectionsList = z.infer<typeof ConnectionListSchema>;
export type SecretInput = NonNullable<z.input<typeof CreateConnectionBodySchema>["secret"]>;
export type StartedConnection = z.infer<typeof CreatedConnectionSchema>;
export type Disconnected = z.infer<typeof DisconnectedSchema>;

export const connectionsQueryKey = ["auth", "connections"] as const;

export function fetchConnections(signal?: AbortSignal): Promise<ConnectionsList> {
  return apiData<ConnectionsList>("/auth/connections", { signal });
}

export interface ConnectInput {
  providerId: string;
  shared: boolean;
  scopes?: string[];
  /** A dashboard path the provider's callback sends the browser back to. */
  returnTo?: string | null;
  secret?: SecretInput;
}

export function startConnection(input: ConnectInput): Promise<StartedConnection> {
  return apiData<StartedConnection>("/auth/connections", {
    method: "POST",
    body: {
      provider_id: input.providerId,
      shared: input.shared,
      ...(input.scopes?.length ? { scopes: input.scopes } : {}),
      ...(input.returnTo ? { return_to: input.returnTo } : {}),
      ...(input.secret ? { secret: input.secret } : {}),
    },
  });
}

export function disconnectConnection(connectionId: string): Promise<Disconnected> {
  return apiData<Disconnected>(`/auth/connections/${encodeURIComponent(connectionId)}`, { method: "DELETE" });
}

export function setConnectionSharing(sharing: ConnectionSharing): Promise<{ sharing: ConnectionSharing }> {
  return apiData<{ sharing: ConnectionSharing }>("/auth/connections/sharing", { method: "PUT", body: { sharing } });
}

/** Whether a user of `role` may share a connection with the whole account under the owners' `sharing`. */
export function mayShare(role: UserRole, sharing: ConnectionSharing): boolean {
  return role === "owner" || (role === "member" && sharing === "members");
}

/** The query parameters the connect callback returns with (`?connected=github`, `?connect_error=…`). */
export const CONNECTED_PARAM = "connected";
export const CONNECT_ERROR_PARAM = "connect_error";

/** A path inside the dashboard to return to; anything else (another origin, a scheme) is dropped. */
export function safeReturnTo(value: string | null | undefined): string | null {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\") || value.length > 2000 || /[\u0000-\u001f]/.test(value)) return null;
  return value;
}

/**
 * The page the browser is on, as a `return_to`: path and query, without the banners of an earlier
 * connect, so coming back twice does not pile them up.
 */
export function currentReturnTo(location: { pathname: string; search: string }): string {
  const params = new URLSearchParams(location.search);
  params.delete(CONNECTED_PARAM);
  params.delete(CONNECT_ERROR_PARAM);
  const qs = params.toString();
  return `${location.pathname}${qs ? `?${qs}` : ""}`;
}

/** `path` with `?connected=<provider>` added: where a pasted secret's connect returns to, as the OAuth callback does. */
export function withConnected(path: string, providerId: string): string {
  const url = new URL(path, "http://page.invalid");
  url.searchParams.delete(CONNECT_ERROR_PARAM);
  url.searchParams.set(CONNECTED_PARAM, providerId);
  return `${url.pathname}${url.search}`;
}

/** The connect page for a provider (what a refused Call's `signin_url` opens). */
export function connectPageHref(input: { providerId: string; scopes?: string[]; shared?: boolean; returnTo?: string | null }): string {
  const params = new URLSearchParams({ provider: input.providerId });
  if (input.scopes?.length) params.set("scope", input.scopes.join(" "));
  if (input.shared) params.set("shared", "1");
  if (input.returnTo) params.set("return_to", input.returnTo);
  return `/connections/connect?${params}`;
}

export interface ConnectRequest {
  providerId: string;
  scopes: string[];
  /** The user the link was made for (the Call's caller); null when the link names none. */
  forUserId: string | null;
  shared: boolean;
  returnTo: string | null;
}

/** The connect page's query: `provider`, `scope` (space-separated), `for`, `shared=0|1`, `return_to`. */
export function parseConnectRequest(params: { get(name: string): string | null }): ConnectRequest | null {
  const providerId = params.get("provider")?.trim();
  if (!providerId) return null;
  return {
    providerId,
    scopes: [...new Set((params.get("scope") ?? "").split(/\s+/).filter(Boolean))],
    forUserId: params.get("for")?.trim() || null,
    shared: params.get("shared") === "1" || params.get("shared") === "true",
    returnTo: safeReturnTo(params.get("return_to")),
  };
}

export interface SigninRequired {
  providerId: string;
  scopes: string[];
  signinUrl: string | null;
  /** The user whose connection the Call needed (the API key's creator), from the `signin_url`. */
  forUserId: string | null;
  /** The Call has no user (a key the operator's CLI made): only a connection shared with the account serves it. */
  shared: boolean;
}

/** What a Call refused with `oauth_signin_required` asks for: its `result.provider_id`, `scopes` and `signin_url`. */
export function signinRequiredOf(result: Record<string, unknown> | undefined): SigninRequired | null {
  if (!result || typeof result.provider_id !== "string" || !result.provider_id) return null;
  const scopes = Array.isArray(result.scopes) ? result.scopes.filter((s): s is string => typeof s === "string") : [];
  const signinUrl = typeof result.signin_url === "string" ? result.signin_url : null;
  let link: ConnectRequest | null = null;
  if (signinUrl) {
    try {
      link = parseConnectRequest(new URL(signinUrl, "http://page.invalid").searchParams);
    } catch {
      link = null;
    }
  }
  return { providerId: result.provider_id, scopes, signinUrl, forUserId: link?.forUserId ?? null, shared: link?.shared ?? false };
}

/**
 * The dashboard's client for the public `/api/v1` API (browser side). It authenticates with a
 * short-lived JWT minted from the dashboard session by `/api/dashboard/token`, cached until
 * shortly before it expires, so the dashboard uses exactly the API that agents use.
 */

export interface DashboardAccessToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

/** The `APIResponse` wrapper of account endpoints. */
export interface ApiEnvelope<T> {
  status: "success" | "failure";
  message: string;
  status_code: number;
  data: T;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** True when the dashboard session itself is gone: the user must sign in again. */
    readonly signedOut = false,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

const TOKEN_URL = "/api/dashboard/token";
const API_BASE = "/api/v1";
// Renew this long before expiry so a token never expires between being read and being checked.
const RENEW_BEFORE_MS = 30_000;

let cachedToken: { value: string; renewAt: number } | undefined;
let pendingToken: Promise<string> | undefined;

async function fetchToken(): Promise<string> {
  const res = await fetch(TOKEN_URL, { credentials: "same-origin", cache: "no-store" });
  if (res.status === 401) throw new ApiError(401, "Your session has ended. Sign in again.", true);
  if (!res.ok) throw new ApiError(res.status, `Could not get an API token (HTTP ${res.status})`);
  const body = (await res.json()) as DashboardAccessToken;
  cachedToken = { value: body.access_token, renewAt: Date.now() + body.expires_in * 1000 - RENEW_BEFORE_MS };
  return body.access_token;
}

/** A valid access token for the signed-in user; concurrent callers share one request. */
export async function getAccessToken(): Promise<string> {
  if (cachedToken && Date.now() < cachedToken.renewAt) return cachedToken.value;
  pendingToken ??= fetchToken().finally(() => {
    pendingToken = undefined;
  });
  return pendingToken;
}

/** Forgets the cached token (after sign-out, or when the API rejected it). */
export function clearAccessToken(): void {
  cachedToken = undefined;
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[];

export interface ApiRequestOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function apiUrl(path: string, query?: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const qs = params.toString();
  return `${API_BASE}${path.startsWith("/") ? path : `/${path}`}${qs ? `?${qs}` : ""}`;
}

function errorMessage(body: unknown, status: number): string {
  if (body && typeof body === "object") {
    const message = (body as { message?: unknown }).message;
    if (typeof message === "string" && message) return message;
    const detail = (body as { detail?: unknown }).detail;
    if (Array.isArray(detail) && detail.length > 0) {
      const first = detail[0] as { msg?: unknown };
      if (typeof first.msg === "string") return first.msg;
    }
  }
  return `Request failed (HTTP ${status})`;
}

async function send(path: string, options: ApiRequestOptions, token: string): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json", Authorization: `Bearer ${token}`, ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  return fetch(apiUrl(path, options.query), { method: options.method ?? "GET", headers, body, signal: options.signal, cache: "no-store" });
}

/** Calls `/api/v1<path>` as the signed-in user and returns the parsed JSON body. */
export async function apiRequest<T>(path: string, options: ApiRequestOptions = {}): Promise<T> {
  let res = await send(path, options, await getAccessToken());
  if (res.status === 401) {
    // The token may have been revoked or the signing key rotated: one retry with a fresh token.
    clearAccessToken();
    res = await send(path, options, await getAccessToken());
  }
  const text = await res.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!res.ok) throw new ApiError(res.status, errorMessage(body, res.status));
  return body as T;
}

/** For endpoints answering in the `APIResponse` wrapper: returns its `data`. */
export async function apiData<T>(path: string, options: ApiRequestOptions = {}): Promise<T> {
  const envelope = await apiRequest<ApiEnvelope<T>>(path, options);
  if (envelope.status_code !== 0) throw new ApiError(200, envelope.message || "The API reported a failure");
  return envelope.data;
}

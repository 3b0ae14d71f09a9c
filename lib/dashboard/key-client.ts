import { apiUrl, type QueryValue } from "./api-client";

/**
 * Calls to the API-key operations (Discover, Inspect, Probe, Call) with the key the user picked.
 * These operations answer in several shapes by status (a Call's 422 and 402 carry a Call
 * response), so the caller gets the status and the parsed body and decides; only a refused key
 * and an unreadable answer are errors.
 */
export class KeyRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The API key itself was refused (401): unknown, revoked or malformed. */
    readonly keyRejected: boolean,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "KeyRequestError";
  }
}

export interface KeyResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface KeyRequestOptions {
  apiKey: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

function messageOf(body: unknown, status: number): string {
  if (body && typeof body === "object") {
    for (const field of ["message", "error_message", "error"] as const) {
      const value = (body as Record<string, unknown>)[field];
      if (typeof value === "string" && value) return value;
    }
    const detail = (body as { detail?: unknown }).detail;
    if (Array.isArray(detail) && detail.length > 0) {
      const first = detail[0] as { loc?: unknown; msg?: unknown };
      if (typeof first.msg === "string") return Array.isArray(first.loc) ? `${first.loc.join(".")}: ${first.msg}` : first.msg;
    }
  }
  return `Request failed (HTTP ${status})`;
}

/**
 * POSTs JSON to `/api/v1<path>` with `Authorization: Bearer <API key>`. Statuses listed in
 * `accept` (and every 2xx) resolve with the body; anything else throws KeyRequestError.
 */
export async function keyPost<T>(path: string, options: KeyRequestOptions, accept: readonly number[] = []): Promise<KeyResponse<T>> {
  const res = await fetch(apiUrl(path, options.query), {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${options.apiKey}`, ...options.headers },
    body: JSON.stringify(options.body ?? {}),
    signal: options.signal,
    cache: "no-store",
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    throw new KeyRequestError(res.status, `Unreadable answer (HTTP ${res.status})`, false);
  }
  if (res.ok || accept.includes(res.status)) return { status: res.status, body: body as T, headers: res.headers };
  throw new KeyRequestError(res.status, messageOf(body, res.status), res.status === 401, body);
}

/** Checks that a key authenticates and returns the account it belongs to (`GET /auth/credits`). */
export async function checkApiKey(apiKey: string, signal?: AbortSignal): Promise<{ accountId: string; available: number }> {
  const res = await fetch(apiUrl("/auth/credits"), { headers: { Accept: "application/json", Authorization: `Bearer ${apiKey}` }, signal, cache: "no-store" });
  const body = (await res.json().catch(() => undefined)) as { data?: { account_id?: string; total_available_credits?: number } } | undefined;
  if (!res.ok || !body?.data?.account_id) throw new KeyRequestError(res.status, messageOf(body, res.status), res.status === 401, body);
  return { accountId: body.data.account_id, available: body.data.total_available_credits ?? 0 };
}

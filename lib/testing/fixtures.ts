import { createAccount } from "../accounts/create-account";
import { createUser } from "../accounts/create-user";
import { createApiKey } from "../auth/api-keys";
import { DEFAULT_SCOPE, issueAccessToken } from "../auth/jwt";
import type { Db } from "../db/types";
import type { UserRole } from "../vocab/roles";

let counter = 0;

/** An account with a user, an API key and a JWT, built through the same domain verbs the CLI uses. */
export async function seedAccount(db: Db, options: { credits?: string; role?: UserRole; name?: string } = {}) {
  counter += 1;
  const { account_id: accountId } = await createAccount(db, { name: options.name ?? `Test ${counter}`, credits: options.credits });
  const email = `user${counter}-${accountId}@example.test`;
  const { user_id: userId } = await createUser(db, { accountId, email, password: "correct horse battery", role: options.role ?? "owner" });
  const { api_key: apiKey, api_key_id: apiKeyId } = await createApiKey(db, { accountId, name: "test" });
  const { accessToken } = await issueAccessToken(db, { userId, accountId, role: options.role ?? "owner", scope: DEFAULT_SCOPE, ttlSeconds: 600 });
  return { accountId, userId, email, apiKey, apiKeyId, accessToken };
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

type Json = ReturnType<typeof JSON.parse>;

/** One request to the API as a client sends it (a JSON body when given); a JSON answer parsed, another (CSV) as text. */
export async function callApi(baseUrl: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // CSV exports stay text.
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

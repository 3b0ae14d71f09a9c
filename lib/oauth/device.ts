import crypto from "node:crypto";
import { and, eq, gt, sql } from "drizzle-orm";
import { oauthClients, oauthDeviceCodes } from "../db/schema";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { randomToken, sha256Hex } from "../auth/secrets";
import { apiAudience } from "../auth/issuer";
import { publicUrl } from "../env";
import { assertGrantAllowed, type OAuthClient } from "./client-auth";
import { grantTypeNames } from "./create-client";
import { oauthError } from "./errors";
import { resolveResource } from "./resources";
import { formatScope, parseScope } from "./scopes";
import { issueUserTokens, type IssuedUserTokens } from "./tokens";
import { throttledUserCodeAttempt } from "./user-code-throttle";

export const DEVICE_CODE_TTL_SECONDS = 600;
export const DEVICE_POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 section 3.5: each `slow_down` adds 5 seconds to the interval, for good. */
export const SLOW_DOWN_STEP_SECONDS = 5;

// RFC 8628 section 6.1: base-20 consonants, 8 characters (about 34 bits), no vowels so no words.
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
const USER_CODE_LENGTH = 8;

export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export function verificationUri(): string {
  return `${publicUrl()}/device`;
}

function newUserCode(): string {
  let code = "";
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[crypto.randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** `BCDFGHJK` -> `BCDF-GHJK`, the form shown to people. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What a person typed, case and separators ignored; null when it cannot be a user code. */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, "");
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const ch of code) if (!USER_CODE_ALPHABET.includes(ch)) return null;
  return code;
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === "23505" || e.cause?.code === "23505";
}

/** RFC 8628 section 3.1-3.2: a device code for the client and a user code for the person. */
export async function startDeviceAuthorization(
  db: Db,
  input: { client: OAuthClient; scope: string; resource?: string },
): Promise<DeviceAuthorizationResponse> {
  assertGrantAllowed(input.client, grantTypeNames.device_code);
  const scope = formatScope(parseScope(input.scope));
  const resource = await resolveResource(db, input.client, input.resource);
  const deviceCode = randomToken(32);
  const expiresAt = new Date(Date.now() + DEVICE_CODE_TTL_SECONDS * 1000);
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    try {
      await db.insert(oauthDeviceCodes).values({
        deviceCodeHash: sha256Hex(deviceCode),
        userCode,
        clientId: input.client.id,
        scope,
        resource,
        intervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
        expiresAt,
      });
    } catch (err) {
      // A user code still in the table (even an old one) is taken: draw another.
      if (isUniqueViolation(err) && attempt < 5) continue;
      throw err;
    }
    const shown = formatUserCode(userCode);
    return {
      device_code: deviceCode,
      user_code: shown,
      verification_uri: verificationUri(),
      verification_uri_complete: `${verificationUri()}?user_code=${encodeURIComponent(shown)}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    };
  }
}

export interface PendingDeviceAuthorization {
  userCode: string;
  clientId: string;
  clientName: string;
  scope: string[];
  resource: string | null;
  expiresAt: Date;
}

/**
 * A user code awaiting a decision (not expired, not decided), for the verification page. The
 * signed-in user's wrong codes are counted: too many and every code is refused for a while
 * (`UserCodeThrottledError`), as in `decideDeviceAuthorization`, so neither path can skip it.
 */
export async function findPendingDeviceAuthorization(db: Db, input: { userCode: string; userId: string }): Promise<PendingDeviceAuthorization | null> {
  return throttledUserCodeAttempt(input.userId, () => pendingDeviceAuthorization(db, input.userCode), (found) => found !== null);
}

async function pendingDeviceAuthorization(db: Db, userCodeInput: string): Promise<PendingDeviceAuthorization | null> {
  const userCode = normalizeUserCode(userCodeInput);
  if (!userCode) return null;
  const found = await db
    .select({ device: oauthDeviceCodes, clientName: oauthClients.name })
    .from(oauthDeviceCodes)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthDeviceCodes.clientId))
    .where(and(eq(oauthDeviceCodes.userCode, userCode), eq(oauthDeviceCodes.status, "pending"), gt(oauthDeviceCodes.expiresAt, new Date())))
    .limit(1);
  const row = found[0];
  if (!row) return null;
  return {
    userCode: formatUserCode(userCode),
    clientId: row.device.clientId,
    clientName: row.clientName,
    scope: row.device.scope.split(" "),
    resource: row.device.resource,
    expiresAt: row.device.expiresAt,
  };
}

/**
 * The signed-in user's decision on a user code, for their own account. Only a pending, unexpired
 * code can be decided, once; anything else returns false and counts as a wrong code, since the
 * decision is as good a place to guess codes as the page that shows them.
 */
export async function decideDeviceAuthorization(
  db: Db,
  input: { userCode: string; userId: string; accountId: string; approve: boolean },
): Promise<boolean> {
  return throttledUserCodeAttempt(input.userId, () => decide(db, input), (decided) => decided);
}

async function decide(db: Db, input: { userCode: string; userId: string; accountId: string; approve: boolean }): Promise<boolean> {
  const userCode = normalizeUserCode(input.userCode);
  if (!userCode) return false;
  const updated = await db
    .update(oauthDeviceCodes)
    .set({ status: input.approve ? "approved" : "denied", userId: input.userId, accountId: input.accountId })
    .where(and(eq(oauthDeviceCodes.userCode, userCode), eq(oauthDeviceCodes.status, "pending"), gt(oauthDeviceCodes.expiresAt, new Date())))
    .returning({ userCode: oauthDeviceCodes.userCode });
  return updated.length === 1;
}

interface PolledDeviceCode {
  client_id: string;
  scope: string;
  resource: string | null;
  status: "pending" | "approved" | "denied" | "consumed";
  user_id: string | null;
  account_id: string | null;
  interval_seconds: number;
  expired: boolean;
  too_fast: boolean;
}

/**
 * The device grant (RFC 8628 section 3.4-3.5). Each poll is recorded in the same statement that
 * decides whether it came too early, so concurrent polls cannot both slip under the interval.
 */
export async function pollDeviceCode(db: Db, input: { client: OAuthClient; deviceCode: string }): Promise<IssuedUserTokens> {
  assertGrantAllowed(input.client, grantTypeNames.device_code);
  const hash = sha256Hex(input.deviceCode);
  const result = await db.execute(sql`
    UPDATE oauth_device_codes d
       SET last_polled_at = now(),
           interval_seconds = CASE WHEN p.too_fast THEN d.interval_seconds + ${SLOW_DOWN_STEP_SECONDS} ELSE d.interval_seconds END
      FROM (SELECT status = 'pending' AND last_polled_at IS NOT NULL
                   AND last_polled_at > now() - make_interval(secs => interval_seconds) AS too_fast
              FROM oauth_device_codes WHERE device_code_hash = ${hash} FOR UPDATE) p
     WHERE d.device_code_hash = ${hash}
 RETURNING d.client_id, d.scope, d.resource, d.status, d.user_id, d.account_id, d.interval_seconds,
           d.expires_at <= now() AS expired, p.too_fast`);
  const row = rows<PolledDeviceCode>(result)[0];
  if (!row || row.client_id !== input.client.id) throw oauthError("invalid_grant", "Unknown device_code, or it was issued to another client");
  if (row.status === "consumed") throw oauthError("invalid_grant", "This device_code was already exchanged for tokens");
  if (row.expired) throw oauthError("expired_token", "The device_code has expired: start a new device authorization");
  if (row.status === "denied") throw oauthError("access_denied", "The user denied the authorization request");
  if (row.status === "pending") {
    if (row.too_fast) throw oauthError("slow_down", `Polling too fast: wait at least ${row.interval_seconds} seconds between requests`);
    throw oauthError("authorization_pending", "The user has not yet approved the request");
  }

  const consumed = await db
    .update(oauthDeviceCodes)
    .set({ status: "consumed" })
    .where(and(eq(oauthDeviceCodes.deviceCodeHash, hash), eq(oauthDeviceCodes.status, "approved")))
    .returning({ userId: oauthDeviceCodes.userId, accountId: oauthDeviceCodes.accountId });
  const approved = consumed[0];
  if (!approved?.userId || !approved.accountId) throw oauthError("invalid_grant", "This device_code was already exchanged for tokens");
  return issueUserTokens(db, {
    userId: approved.userId,
    accountId: approved.accountId,
    client: input.client,
    scope: row.scope,
    resource: row.resource ?? apiAudience(),
  });
}

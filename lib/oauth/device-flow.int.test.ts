import * as oauth from "oauth4webapi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import { eq, sql } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { bearer, seedAccount } from "../testing/fixtures";
import { basic, form, oauthFailure, registerClient, startOAuthHarness, type OAuthHarness, type RegisteredClient } from "../testing/oauth";
import { oauthDeviceCodes } from "../db/schema";
import { apiAudience } from "../auth/issuer";
import { sha256Hex } from "../auth/secrets";
import { resetRateLimits } from "../http/rate-limit";
import type { Database } from "../db/types";
import { decideDeviceAuthorization, findPendingDeviceAuthorization, normalizeUserCode } from "./device";
import { UserCodeThrottledError, WRONG_USER_CODES_PER_WINDOW } from "./user-code-throttle";

let database: Database;
let h: OAuthHarness;
let cli: RegisteredClient;
let user: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startOAuthHarness(database);
  cli = await registerClient(database.db, { name: "Agent CLI", type: "public", grants: ["device_code", "refresh_token"] });
  user = await seedAccount(database.db, { credits: "10" });
});

// Every request comes from the test's loopback address: each test starts with a full bucket.
beforeEach(() => resetRateLimits());

async function startFlow(client: RegisteredClient = cli, scope = "tools:read usage:read") {
  const res = await oauth.deviceAuthorizationRequest(h.as, client.client, client.auth, { scope }, h.http);
  return oauth.processDeviceAuthorizationResponse(h.as, client.client, res);
}

const poll = (deviceCode: string, client: RegisteredClient = cli) =>
  oauth.deviceCodeGrantRequest(h.as, client.client, client.auth, deviceCode, h.http).then((res) => oauth.processDeviceCodeResponse(h.as, client.client, res));

async function deviceRow(deviceCode: string) {
  return (await database.db.select().from(oauthDeviceCodes).where(eq(oauthDeviceCodes.deviceCodeHash, sha256Hex(deviceCode))))[0];
}

/** Moves the last poll into the past, as if the client had waited `seconds`. */
async function waitedSinceLastPoll(deviceCode: string, seconds: number) {
  await database.db.execute(sql`UPDATE oauth_device_codes SET last_polled_at = now() - make_interval(secs => ${seconds}) WHERE device_code_hash = ${sha256Hex(deviceCode)}`);
}

describe("device authorization grant (RFC 8628) driven by oauth4webapi", () => {
  it("answers with a user code and the dashboard's verification URIs", async () => {
    const started = await startFlow();
    expect(started.verification_uri).toBe("http://tollgate.test/device");
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri_complete).toBe(`http://tollgate.test/device?user_code=${started.user_code}`);
    expect(started.expires_in).toBe(600);
    expect(started.interval).toBe(5);
    const pending = await findPendingDeviceAuthorization(database.db, { userCode: started.user_code.toLowerCase().replace("-", ""), userId: user.userId });
    expect(pending).toMatchObject({ userCode: started.user_code, clientName: "Agent CLI", scope: ["tools:read", "usage:read"] });
  });

  it("polls authorization_pending, slows a fast poller down by 5 s each time, then issues tokens once approved", async () => {
    const started = await startFlow();
    expect(await oauthFailure(poll(started.device_code))).toMatchObject({ status: 400, error: "authorization_pending" });
    expect(await oauthFailure(poll(started.device_code))).toMatchObject({ status: 400, error: "slow_down" });
    expect((await deviceRow(started.device_code)).intervalSeconds).toBe(10);
    expect(await oauthFailure(poll(started.device_code))).toMatchObject({ status: 400, error: "slow_down" });
    expect((await deviceRow(started.device_code)).intervalSeconds).toBe(15);

    // A client that waits the (grown) interval is pending again, not slowed down.
    await waitedSinceLastPoll(started.device_code, 16);
    expect(await oauthFailure(poll(started.device_code))).toMatchObject({ status: 400, error: "authorization_pending" });

    expect(await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: true })).toBe(true);
    const tokens = await poll(started.device_code);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.scope).toBe("tools:read usage:read");
    expect(tokens.expires_in).toBe(900);
    expect(tokens.refresh_token).toMatch(/^tgr_/);
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ sub: user.userId, acct: user.accountId, aud: apiAudience(), client_id: cli.client.client_id, token_use: "access", iss: "http://tollgate.test" });

    // The token works at a JWT endpoint of this API.
    const verified = await h.fetch(`${apiAudience()}/auth/verify-token`, { method: "POST", headers: bearer(tokens.access_token) });
    expect(verified.status).toBe(200);

    // A device code is exchanged once.
    expect(await oauthFailure(poll(started.device_code))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("reports access_denied when the user denies", async () => {
    const started = await startFlow();
    expect(await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: false })).toBe(true);
    expect(await oauthFailure(poll(started.device_code))).toMatchObject({ status: 400, error: "access_denied" });
    // Decided once: a later approval of the same code is refused.
    expect(await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: true })).toBe(false);
  });

  it("reports expired_token after expiry, and an expired code can no longer be approved", async () => {
    const started = await startFlow();
    await database.db.update(oauthDeviceCodes).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(oauthDeviceCodes.deviceCodeHash, sha256Hex(started.device_code)));
    expect(await findPendingDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId })).toBeNull();
    expect(await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: true })).toBe(false);
    expect(await oauthFailure(poll(started.device_code))).toMatchObject({ status: 400, error: "expired_token" });
  });

  it("refuses a device code presented by another client, and an unknown one", async () => {
    const other = await registerClient(database.db, { name: "Other", type: "public", grants: ["device_code"] });
    const started = await startFlow();
    expect(await oauthFailure(poll(started.device_code, other))).toMatchObject({ status: 400, error: "invalid_grant" });
    expect(await oauthFailure(poll("no-such-device-code"))).toMatchObject({ status: 400, error: "invalid_grant" });
  });

  it("accepts a confidential client authenticated with HTTP Basic", async () => {
    const confidential = await registerClient(database.db, { name: "Server app", type: "confidential", grants: ["device_code"] });
    const started = await startFlow(confidential, "tools:execute");
    await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: true });
    const tokens = await poll(started.device_code, confidential);
    expect(tokens.scope).toBe("tools:execute");
    // Not registered for refresh_token: no refresh token.
    expect(tokens.refresh_token).toBeUndefined();
  });
});

describe("wrong user codes (RFC 8628 section 5.1)", () => {
  // Well-formed codes no flow of this file is likely to draw (1 in 20^8 each).
  const wrongCode = (i: number) => `ZZZZ-ZZ${"BCDFGHJKLMNPQRSTVWXZ"[i]}Z`;

  it("are counted when they are decided without the page, and then block the right code too, on the page and in the decision", async () => {
    const guesser = await seedAccount(database.db, { credits: "0" });
    const started = await startFlow();
    const decide = (userCode: string) => decideDeviceAuthorization(database.db, { userCode, userId: guesser.userId, accountId: guesser.accountId, approve: true });
    for (let i = 0; i < WRONG_USER_CODES_PER_WINDOW; i++) expect(await decide(wrongCode(i))).toBe(false);

    await expect(decide(started.user_code)).rejects.toBeInstanceOf(UserCodeThrottledError);
    await expect(findPendingDeviceAuthorization(database.db, { userCode: started.user_code, userId: guesser.userId })).rejects.toBeInstanceOf(UserCodeThrottledError);
    expect((await deviceRow(started.device_code)).status).toBe("pending");
    // The limit is the guesser's: another user still decides the code.
    expect(await decideDeviceAuthorization(database.db, { userCode: started.user_code, userId: user.userId, accountId: user.accountId, approve: false })).toBe(true);
  });

  it("count on the page and in the decision alike", async () => {
    const guesser = await seedAccount(database.db, { credits: "0" });
    for (let i = 0; i < WRONG_USER_CODES_PER_WINDOW / 2; i++) expect(await findPendingDeviceAuthorization(database.db, { userCode: wrongCode(i), userId: guesser.userId })).toBeNull();
    for (let i = 0; i < WRONG_USER_CODES_PER_WINDOW / 2; i++) {
      expect(await decideDeviceAuthorization(database.db, { userCode: wrongCode(10 + i), userId: guesser.userId, accountId: guesser.accountId, approve: true })).toBe(false);
    }
    await expect(findPendingDeviceAuthorization(database.db, { userCode: wrongCode(19), userId: guesser.userId })).rejects.toBeInstanceOf(UserCodeThrottledError);
  });
});

describe("device authorization request errors", () => {
  const post = (body: URLSearchParams | string, headers: Record<string, string> = {}) =>
    h.fetch(`${apiAudience()}/oauth/device/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body,
    });

  it("an unknown client is 401 invalid_client with a Basic challenge", async () => {
    const res = await post(form({ client_id: "cli_nope", scope: "tools:read" }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(await res.json()).toEqual({ error: "invalid_client", error_description: expect.any(String) });
  });

  it("a confidential client without its secret, or with a wrong one, is 401", async () => {
    const confidential = await registerClient(database.db, { name: "Conf", type: "confidential", grants: ["device_code"] });
    expect((await post(form({ client_id: confidential.client.client_id, scope: "tools:read" }))).status).toBe(401);
    const wrong = await post(form({ scope: "tools:read" }), { authorization: basic(confidential.client.client_id, "not-the-secret") });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("a client not registered for the device grant is 400 unauthorized_client", async () => {
    const web = await registerClient(database.db, { name: "Web", type: "public", grants: ["authorization_code"], redirectUris: ["http://127.0.0.1/cb"] });
    const res = await post(form({ client_id: web.client.client_id, scope: "tools:read" }));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("unauthorized_client");
  });

  it("scope is required and must be known; resource must be known", async () => {
    const missing = await post(form({ client_id: cli.client.client_id }));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: "invalid_request", error_description: "scope is required" });
    const unknown = await post(form({ client_id: cli.client.client_id, scope: "tools:read admin" }));
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toBe("invalid_scope");
    const target = await post(form({ client_id: cli.client.client_id, scope: "tools:read", resource: "https://elsewhere.example/api" }));
    expect(target.status).toBe(400);
    expect((await target.json()).error).toBe("invalid_target");
  });

  it("a JSON body or a repeated parameter is 400 invalid_request", async () => {
    const json = await post(JSON.stringify({ client_id: cli.client.client_id, scope: "tools:read" }), { "content-type": "application/json" });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe("invalid_request");
    const repeated = await post(`client_id=${cli.client.client_id}&scope=tools:read&scope=usage:read`);
    expect(repeated.status).toBe(400);
    expect(await repeated.json()).toMatchObject({ error: "invalid_request", error_description: "scope must not be repeated" });
  });

  it("is rate limited per client IP: 429 OAuthRateLimitResponse with Retry-After and rate-limit headers", async () => {
    let last: Response | undefined;
    for (let i = 0; i < 31; i++) {
      last = await post(form({ client_id: cli.client.client_id, scope: "tools:read" }));
      if (i < 30) expect(last.status).toBe(200);
    }
    expect(last!.status).toBe(429);
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get("x-ratelimit-limit")).toBe("30");
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(last!.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(await last!.json()).toEqual({ error: "rate_limited", error_description: expect.any(String), retry_after: retryAfter });
  });

  it("keys on the socket address by default: a client's own X-Forwarded-For does not get it a fresh bucket", async () => {
    for (let i = 0; i < 30; i++) expect((await post(form({ client_id: cli.client.client_id, scope: "tools:read" }))).status).toBe(200);
    for (const spoofed of ["203.0.113.7", "198.51.100.1, 203.0.113.8"]) {
      const res = await post(form({ client_id: cli.client.client_id, scope: "tools:read" }), { "x-forwarded-for": spoofed });
      expect(res.status, spoofed).toBe(429);
    }
  });
});

describe("user codes", () => {
  it("are matched whatever the case and separators a person types", () => {
    expect(normalizeUserCode("bcdf-ghjk")).toBe("BCDFGHJK");
    expect(normalizeUserCode(" BCDF GHJK ")).toBe("BCDFGHJK");
    expect(normalizeUserCode("BCDF-GHJA")).toBeNull();
    expect(normalizeUserCode("BCDF")).toBeNull();
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { generate } from "otplib";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { createUser } from "../../accounts/create-user";
import { addMember } from "../../accounts/members";
import { OPERATOR } from "../../accounts/activity";
import { resetCodeThrottle, useSecondFactor } from "../../accounts/two-factor";
import { DEFAULT_SCOPE, issueAccessToken } from "../../auth/jwt";
import { accountActivity, userRecoveryCodes, userTotp } from "../../db/schema";
import type { Db } from "../../db/types";
import { setDatabase } from "../../db";
import { authorizeCredentials } from "../../dashboard-session/auth-options";
import { LOGIN_LIMITS } from "../../dashboard-session/login-throttle";

type Seeded = Awaited<ReturnType<typeof seedAccount>>;

const PASSWORD = "correct horse battery";
const database = await createTestDatabase();
const { db } = database;
let server: TestServer;

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);
/** The code an authenticator shows `offsetSteps` steps from now (within the ±1 window). */
const codeFor = (secret: string, offsetSteps = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 });

async function member(owner: Seeded, role: "member" | "owner" = "member") {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.test`;
  const { user_id: userId } = await createUser(db, { accountId: owner.accountId, email, password: PASSWORD, role });
  const { accessToken } = await issueAccessToken(db, { userId, accountId: owner.accountId, role, scope: DEFAULT_SCOPE, ttlSeconds: 600 });
  return { userId, email, accessToken };
}

/** Enrols through the API; returns the secret, the code that confirmed it and the recovery codes. */
async function enrol(token: string): Promise<{ secret: string; used: string; codes: string[] }> {
  const started = await api("POST", "/auth/user/two-factor/enrolment", token, { password: PASSWORD });
  expect(started.status).toBe(200);
  const used = await codeFor(started.body.data.secret);
  const confirmed = await api("POST", "/auth/user/two-factor/confirm", token, { code: used });
  expect(confirmed.status).toBe(200);
  return { secret: started.body.data.secret, used, codes: confirmed.body.data.recovery_codes };
}

const actions = async (accountId: string, action: string) =>
  db.select().from(accountActivity).where(and(eq(accountActivity.accountId, accountId), eq(accountActivity.action, action))).orderBy(asc(accountActivity.seq));

const signIn = (email: string, code?: string, address = "203.0.113.9") =>
  authorizeCredentials({ email, password: PASSWORD, ...(code === undefined ? {} : { code }) }, { headers: { "user-agent": "vitest", "x-tollgate-client-address": address } });

beforeAll(async () => {
  server = await startTestServer(database);
  setDatabase(database);
});

describe("enrolment", () => {
  it("asks the password again, hands out a secret with its URI and QR code, and turns on only with a valid code; ten recovery codes once; logged in every account", async () => {
    const owner = await seedAccount(db);
    const other = await seedAccount(db);
    await addMember(db, { accountId: other.accountId, userId: owner.userId, role: "member", actor: OPERATOR });

    expect((await api("GET", "/auth/user/two-factor", owner.accessToken)).body.data).toEqual({
      enabled: false, enabled_at: null, pending_enrolment: false, recovery_codes_remaining: 0, required_by_account: false, must_enrol: false,
    });
    expect((await api("POST", "/auth/user/two-factor/enrolment", owner.accessToken, { password: "wrong password" })).status).toBe(403);
    expect((await api("POST", "/auth/user/two-factor/confirm", owner.accessToken, { code: "123456" })).status).toBe(409);

    const started = await api("POST", "/auth/user/two-factor/enrolment", owner.accessToken, { password: PASSWORD });
    expect(started.status).toBe(200);
    const { secret, otpauth_uri: uri, qr_svg: svg } = started.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect(`${parsed.protocol}//${parsed.host}${decodeURIComponent(parsed.pathname)}`).toBe(`otpauth://totp/Tollgate:${owner.email}`);
    expect(Object.fromEntries(parsed.searchParams)).toMatchObject({ secret, issuer: "Tollgate" });
    expect(svg).toMatch(/^<svg/);
    expect((await api("GET", "/auth/user/two-factor", owner.accessToken)).body.data).toMatchObject({ enabled: false, pending_enrolment: true });
    const [stored] = await db.select().from(userTotp).where(eq(userTotp.userId, owner.userId));
    expect(stored.secretEncrypted).not.toContain(secret);
    expect(stored.confirmedAt).toBeNull();

    const wrong = await api("POST", "/auth/user/two-factor/confirm", owner.accessToken, { code: (await codeFor(secret, 3)) });
    expect(wrong.status).toBe(403);
    const confirmed = await api("POST", "/auth/user/two-factor/confirm", owner.accessToken, { code: await codeFor(secret) });
    expect(confirmed.status).toBe(200);
    const codes: string[] = confirmed.body.data.recovery_codes;
    expect(codes).toHaveLength(10);
    const hashes = await db.select().from(userRecoveryCodes).where(eq(userRecoveryCodes.userId, owner.userId));
    expect(hashes).toHaveLength(10);
    expect(JSON.stringify(hashes)).not.toContain(codes[0]);

    expect((await api("GET", "/auth/user/two-factor", owner.accessToken)).body.data).toMatchObject({ enabled: true, pending_enrolment: false, recovery_codes_remaining: 10 });
    expect((await api("POST", "/auth/user/two-factor/confirm", owner.accessToken, { code: await codeFor(secret, 1) })).status).toBe(409);
    // A second enrolment would replace the authenticator: off first.
    expect((await api("POST", "/auth/user/two-factor/enrolment", owner.accessToken, { password: PASSWORD })).status).toBe(409);
    for (const accountId of [owner.accountId, other.accountId]) {
      expect(await actions(accountId, "two_factor.enabled")).toMatchObject([{ actorId: owner.userId, objectId: owner.userId, after: { method: "totp", recovery_codes: 10 } }]);
    }
  });

  it("only a user's own token manages it: an API key is refused", async () => {
    const owner = await seedAccount(db);
    expect((await api("GET", "/auth/user/two-factor", owner.apiKey)).status).toBe(401);
    expect((await api("POST", "/auth/user/two-factor/enrolment", owner.apiKey, { password: PASSWORD })).status).toBe(401);
  });
});

describe("codes are used once", () => {
  it("a TOTP code is refused the second time, and a code of an earlier step after a later one", async () => {
    const owner = await seedAccount(db);
    const { secret } = await enrol(owner.accessToken);
    const next = await codeFor(secret, 1);
    const use = (code: string) => db.transaction((tx) => useSecondFactor(tx as unknown as Db, { userId: owner.userId, code }));
    expect(await use(next)).toEqual({ ok: true, method: "totp" });
    expect(await use(next)).toEqual({ ok: false, reason: "code already used" });
    // The confirmation used the current step; the next one has been used now: the previous is behind both.
    expect(await use(await codeFor(secret, -1))).toEqual({ ok: false, reason: "code already used" });
    expect(await use("000000")).toMatchObject({ ok: false });
  });

  it("a recovery code signs in once, however it is typed", async () => {
    const owner = await seedAccount(db);
    const { codes } = await enrol(owner.accessToken);
    const use = (code: string) => db.transaction((tx) => useSecondFactor(tx as unknown as Db, { userId: owner.userId, code }));
    expect(await use(codes[3].toUpperCase())).toEqual({ ok: true, method: "recovery_code" });
    expect(await use(codes[3])).toEqual({ ok: false, reason: "recovery code already used" });
    expect(await use("aaaa-bbbb-cccc-dddd")).toEqual({ ok: false, reason: "wrong code" });
    expect((await api("GET", "/auth/user/two-factor", owner.accessToken)).body.data.recovery_codes_remaining).toBe(9);
  });
});

describe("turning it off", () => {
  it("needs a current code, refuses a used one, deletes the secret and codes, and is logged", async () => {
    const owner = await seedAccount(db);
    const { secret, used } = await enrol(owner.accessToken);
    expect((await api("DELETE", "/auth/user/two-factor", owner.accessToken, { code: "000000" })).status).toBe(403);
    const replay = await api("DELETE", "/auth/user/two-factor", owner.accessToken, { code: used });
    expect(replay.status).toBe(403);
    expect(replay.body.message).toMatch(/already used/);
    const off = await api("DELETE", "/auth/user/two-factor", owner.accessToken, { code: await codeFor(secret, 1) });
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ enabled: false });
    expect(await db.select().from(userTotp).where(eq(userTotp.userId, owner.userId))).toEqual([]);
    expect(await db.select().from(userRecoveryCodes).where(eq(userRecoveryCodes.userId, owner.userId))).toEqual([]);
    expect(await actions(owner.accountId, "two_factor.disabled")).toHaveLength(1);
    expect((await api("DELETE", "/auth/user/two-factor", owner.accessToken, { code: "123456" })).status).toBe(409);
  });

  it("wrong codes at the API are throttled per user", async () => {
    const owner = await seedAccount(db);
    await enrol(owner.accessToken);
    for (let i = 0; i < 10; i++) expect((await api("DELETE", "/auth/user/two-factor", owner.accessToken, { code: "000000" })).status).toBe(403);
    const refused = await api("DELETE", "/auth/user/two-factor", owner.accessToken, { code: "000000" });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/Too many wrong codes/);
    await resetCodeThrottle(owner.userId);
  });
});

describe("an owner resets a member's two-factor sign-in", () => {
  it("turns it off for the member, logged; not their own, not a member's of an account they do not own, not as a member", async () => {
    const owner = await seedAccount(db);
    const m = await member(owner);
    await enrol(m.accessToken);
    const path = `/auth/account/members/${m.userId}/two-factor/reset`;

    const asMember = await api("POST", `/auth/account/members/${owner.userId}/two-factor/reset`, m.accessToken);
    expect(asMember.status).toBe(403);
    expect(asMember.body.message).toMatch(/Only the account's owner may reset a member's two-factor sign-in/);
    expect((await api("POST", `/auth/account/members/${owner.userId}/two-factor/reset`, owner.accessToken)).status).toBe(403);
    const stranger = await seedAccount(db);
    expect((await api("POST", `/auth/account/members/${stranger.userId}/two-factor/reset`, owner.accessToken)).status).toBe(404);

    const reset = await api("POST", path, owner.accessToken);
    expect(reset.status).toBe(200);
    expect(reset.body.data).toEqual({ user_id: m.userId, reset: true });
    expect((await api("GET", "/auth/user/two-factor", m.accessToken)).body.data).toMatchObject({ enabled: false, recovery_codes_remaining: 0 });
    expect(await actions(owner.accountId, "two_factor.reset")).toMatchObject([{ actorId: owner.userId, objectId: m.userId, after: { enabled: false } }]);
    expect((await api("POST", path, owner.accessToken)).body.data).toEqual({ user_id: m.userId, reset: false });

    // The member also belongs to an account this owner does not own: its owner's security is not theirs to lower.
    await addMember(db, { accountId: stranger.accountId, userId: m.userId, role: "member", actor: OPERATOR });
    await enrol(m.accessToken);
    const refused = await api("POST", path, owner.accessToken);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/account you do not own/);
  });
});

describe("requiring two-factor sign-in of every member", () => {
  it("only an owner who uses it may turn it on; members without it must enrol; logged", async () => {
    const owner = await seedAccount(db);
    const m = await member(owner);
    expect((await api("GET", "/auth/account/security", m.accessToken)).body.data).toEqual({ require_two_factor: false, required_since: null, members_without_two_factor: 2 });
    const withoutOwn = await api("PUT", "/auth/account/security", owner.accessToken, { require_two_factor: true });
    expect(withoutOwn.status).toBe(409);
    expect(withoutOwn.body.message).toMatch(/Turn on your own two-factor sign-in/);
    expect((await api("PUT", "/auth/account/security", m.accessToken, { require_two_factor: true })).status).toBe(403);

    await enrol(owner.accessToken);
    const on = await api("PUT", "/auth/account/security", owner.accessToken, { require_two_factor: true });
    expect(on.status).toBe(200);
    expect(on.body.data).toMatchObject({ require_two_factor: true, required_since: expect.any(String), members_without_two_factor: 1 });
    expect((await api("GET", "/auth/user/two-factor", m.accessToken)).body.data).toMatchObject({ required_by_account: true, must_enrol: true });
    // Until then the member's tokens reach only the enrolment: not the account's data (nor an OAuth client's copy of them).
    const refused = await api("GET", "/auth/usage/history/v2", m.accessToken);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/requires two-factor sign-in/);
    expect((await api("GET", "/auth/account/security", m.accessToken)).status).toBe(200);
    expect((await api("GET", "/auth/usage/history/v2", owner.accessToken)).status).toBe(200);
    // Setting it again changes nothing and logs nothing.
    await api("PUT", "/auth/account/security", owner.accessToken, { require_two_factor: true });
    expect(await actions(owner.accountId, "two_factor.required")).toMatchObject([{ before: { require_two_factor: false }, after: { require_two_factor: true } }]);

    await enrol(m.accessToken);
    expect((await api("GET", "/auth/user/two-factor", m.accessToken)).body.data).toMatchObject({ required_by_account: true, must_enrol: false });
    expect((await api("GET", "/auth/usage/history/v2", m.accessToken)).status).toBe(200);
    const off = await api("PUT", "/auth/account/security", owner.accessToken, { require_two_factor: false });
    expect(off.body.data).toEqual({ require_two_factor: false, required_since: null, members_without_two_factor: 0 });
    expect(await actions(owner.accountId, "two_factor.required")).toHaveLength(2);
  });
});

describe("signing in with a second factor", () => {
  it("asks for the code after a right password, accepts a current code once, and a recovery code", async () => {
    const owner = await seedAccount(db);
    expect(await signIn(owner.email)).toMatchObject({ id: owner.userId });
    const { secret, codes } = await enrol(owner.accessToken);

    await expect(signIn(owner.email)).rejects.toThrow("TwoFactorRequired");
    const code = await codeFor(secret, 1);
    expect(await signIn(owner.email, code)).toMatchObject({ id: owner.userId, accountId: owner.accountId });
    await expect(signIn(owner.email, code)).rejects.toThrow("TwoFactorInvalid");
    expect(await signIn(owner.email, codes[0])).toMatchObject({ id: owner.userId });
    await expect(signIn(owner.email, codes[0])).rejects.toThrow("TwoFactorInvalid");
    // A wrong password never reaches the code step.
    expect(await authorizeCredentials({ email: owner.email, password: "nope", code }, { headers: {} })).toBeNull();

    // The log keeps the first failure of each kind in the user's window: a wrong code (the password was known) and a wrong password.
    const failed = await actions(owner.accountId, "user.sign_in_failed");
    expect(failed.map((f) => (f.after as { reason: string }).reason)).toEqual(["second factor: code already used", "wrong password"]);
    const signedIn = await actions(owner.accountId, "user.signed_in");
    expect(signedIn.map((s) => s.after)).toEqual([null, { second_factor: "totp" }, { second_factor: "recovery_code" }]);
  });

  it("wrong codes are throttled as wrong passwords are; asking for the code step is no failure", { timeout: 120_000 }, async () => {
    const owner = await seedAccount(db);
    const { secret } = await enrol(owner.accessToken);
    // However often the code step is asked for, nothing is counted.
    for (let i = 0; i < 12; i++) await expect(signIn(owner.email)).rejects.toThrow("TwoFactorRequired");
    // Ten wrong codes in a row from one address, and that address is refused for the email.
    for (let i = 0; i < LOGIN_LIMITS.pairFailures; i++) await expect(signIn(owner.email, "000000")).rejects.toThrow("TwoFactorInvalid");
    await expect(signIn(owner.email, await codeFor(secret, 1))).rejects.toThrow(/^TooManyAttempts:\d+$/);
  });
});

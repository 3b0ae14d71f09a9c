import { and, eq, isNull, sql } from "drizzle-orm";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { accounts, userRecoveryCodes, userTotp, users } from "../db/schema";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { DomainError, forbidden, notFound } from "../errors";
import { verifyPassword } from "../auth/passwords";
import {
  decryptTotpSecret,
  encryptTotpSecret,
  getTotpKey,
  hashRecoveryCode,
  isRecoveryCode,
  isTotpCode,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  normalizeCode,
  totpQrSvg,
  totpUri,
} from "../auth/totp";
import { type Actor, type ActivityInput, recordActivity, recordInAccounts } from "./activity";
import { listMemberships } from "./members";

/**
 * Two-factor sign-in (issue 43): a user enrols a TOTP authenticator (confirmed by a valid code,
 * which hands out ten single-use recovery codes once), signs in with a code after the password,
 * and turns it off with a current code. An owner resets a member's enrolment (a lost phone) and may
 * require every member to use it. A code is accepted once: the step it belongs to is kept and
 * only later steps pass. Each change is logged in every account the user belongs to.
 */

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: string | null;
  /** An enrolment was started and awaits its confirmation code. */
  pending_enrolment: boolean;
  recovery_codes_remaining: number;
  /** The caller's account requires every member to sign in with a second factor. */
  required_by_account: boolean;
  /** Required and not enabled: the dashboard shows enrolment before anything else. */
  must_enrol: boolean;
}

export async function getTwoFactorStatus(db: Db, input: { userId: string; accountId: string }): Promise<TwoFactorStatus> {
  const [totp] = await db.select().from(userTotp).where(eq(userTotp.userId, input.userId));
  const [account] = await db.select({ requiredAt: accounts.requireTwoFactorAt }).from(accounts).where(eq(accounts.id, input.accountId));
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(userRecoveryCodes)
    .where(and(eq(userRecoveryCodes.userId, input.userId), isNull(userRecoveryCodes.usedAt)));
  const enabled = Boolean(totp?.confirmedAt);
  const required = Boolean(account?.requiredAt);
  return {
    enabled,
    enabled_at: totp?.confirmedAt?.toISOString() ?? null,
    pending_enrolment: Boolean(totp && !totp.confirmedAt),
    recovery_codes_remaining: enabled ? Number(n) : 0,
    required_by_account: required,
    must_enrol: required && !enabled,
  };
}

/** Whether the user has confirmed two-factor sign-in (then sign-in asks for a code). */
export async function hasTwoFactor(db: Db, userId: string): Promise<boolean> {
  const [row] = await db.select({ confirmedAt: userTotp.confirmedAt }).from(userTotp).where(eq(userTotp.userId, userId));
  return Boolean(row?.confirmedAt);
}

/** The account requires a second factor and the user has none yet. */
export async function mustEnrol(db: Db, userId: string, accountId: string): Promise<boolean> {
  const [row] = await db
    .select({ requiredAt: accounts.requireTwoFactorAt, confirmedAt: userTotp.confirmedAt })
    .from(accounts)
    .leftJoin(userTotp, eq(userTotp.userId, userId))
    .where(eq(accounts.id, accountId));
  return Boolean(row?.requiredAt) && !row?.confirmedAt;
}

// Wrong codes at the API's confirm and disable, per user: the dashboard's sign-in has its own
// throttle (lib/dashboard-session/login-throttle.ts), this one stops a token holder guessing codes.
const CODE_FAILURES = { points: 10, durationSeconds: 15 * 60 };
const codeFailures = new RateLimiterMemory({ keyPrefix: "two_factor_code", points: CODE_FAILURES.points, duration: CODE_FAILURES.durationSeconds, blockDuration: CODE_FAILURES.durationSeconds });

async function refuseWhileThrottled(userId: string): Promise<void> {
  const res = await codeFailures.get(userId);
  if (res && res.consumedPoints >= CODE_FAILURES.points) {
    throw new DomainError("rate_limited", `Too many wrong codes: try again in ${Math.max(1, Math.ceil(res.msBeforeNext / 1000))} s`);
  }
}

async function countWrongCode(userId: string): Promise<void> {
  await codeFailures.penalty(userId).catch((err) => {
    if (!(err instanceof RateLimiterRes)) throw err;
  });
}

/** Test hook: forget the wrong-code counts. */
export async function resetCodeThrottle(userId: string): Promise<void> {
  await codeFailures.delete(userId);
}

async function logInEveryAccount(db: Db, userId: string, actor: Actor, input: ActivityInput): Promise<void> {
  await recordInAccounts(db, (await listMemberships(db, userId)).map((m) => m.accountId), actor, input);
}

/**
 * Starts (or restarts) an enrolment: a new secret, shown as an otpauth URI and its QR code. The
 * password is asked again, so a token or an open session alone cannot bind an authenticator the
 * user does not hold. Refused while two-factor sign-in is on: turn it off first.
 */
export async function startEnrolment(db: Db, input: { userId: string; password: string }) {
  const [user] = await db.select({ email: users.email, passwordHash: users.passwordHash }).from(users).where(eq(users.id, input.userId));
  if (!user) throw notFound(`User ${input.userId} not found`);
  if (!(await verifyPassword(input.password, user.passwordHash))) throw forbidden("Wrong password");
  const secret = newTotpSecret();
  const encrypted = encryptTotpSecret(secret, await getTotpKey(db));
  const saved = await db
    .insert(userTotp)
    .values({ userId: input.userId, secretEncrypted: encrypted })
    .onConflictDoUpdate({ target: userTotp.userId, set: { secretEncrypted: encrypted, createdAt: new Date(), lastStep: null }, setWhere: isNull(userTotp.confirmedAt) })
    .returning({ userId: userTotp.userId });
  if (saved.length === 0) throw new DomainError("conflict", "Two-factor sign-in is already on: turn it off first to enrol another authenticator");
  const uri = totpUri(secret, user.email);
  return { secret, otpauth_uri: uri, qr_svg: await totpQrSvg(uri) };
}

/** Confirms the enrolment with a code from the authenticator: two-factor sign-in is on, and the ten recovery codes are returned, this once. */
export async function confirmEnrolment(db: Db, input: { userId: string; code: string; actor: Actor; nowMs?: number }) {
  await refuseWhileThrottled(input.userId);
  const key = await getTotpKey(db);
  const outcome = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(userTotp).where(eq(userTotp.userId, input.userId)).for("update");
    if (!row) throw new DomainError("conflict", "No enrolment was started: start one first");
    if (row.confirmedAt) throw new DomainError("conflict", "Two-factor sign-in is already on");
    const step = await matchTotp(decryptTotpSecret(row.secretEncrypted, key), normalizeCode(input.code), { nowMs: input.nowMs });
    if (step === null) return null;
    const [confirmed] = await tx.update(userTotp).set({ confirmedAt: new Date(), lastStep: step }).where(eq(userTotp.userId, input.userId)).returning();
    const codes = newRecoveryCodes();
    await tx.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, input.userId));
    await tx.insert(userRecoveryCodes).values(codes.map((c) => ({ userId: input.userId, codeHash: hashRecoveryCode(c) })));
    await logInEveryAccount(tx as unknown as Db, input.userId, input.actor, { action: "two_factor.enabled", objectType: "user", objectId: input.userId, after: { method: "totp", recovery_codes: codes.length } });
    return { enabled: true as const, enabled_at: confirmed.confirmedAt!.toISOString(), recovery_codes: codes };
  });
  if (!outcome) {
    await countWrongCode(input.userId);
    throw forbidden("Wrong code: enter the 6-digit code your authenticator shows now");
  }
  return outcome;
}

export type SecondFactorCheck = { ok: true; method: "totp" | "recovery_code" } | { ok: false; reason: "wrong code" | "code already used" | "recovery code already used" | "no second factor" };

/**
 * Checks a second factor inside the caller's transaction and uses it up: a TOTP code of a step
 * after the last accepted one (the step is stored), or an unused recovery code (marked used).
 */
export async function useSecondFactor(tx: Db, input: { userId: string; code: string; nowMs?: number }): Promise<SecondFactorCheck> {
  const [row] = await tx.select().from(userTotp).where(eq(userTotp.userId, input.userId)).for("update");
  if (!row?.confirmedAt) return { ok: false, reason: "no second factor" };
  const code = normalizeCode(input.code);
  if (isTotpCode(code)) {
    const secret = decryptTotpSecret(row.secretEncrypted, await getTotpKey(tx));
    const step = await matchTotp(secret, code, { afterStep: row.lastStep, nowMs: input.nowMs });
    if (step !== null) {
      await tx.update(userTotp).set({ lastStep: step }).where(eq(userTotp.userId, input.userId));
      return { ok: true, method: "totp" };
    }
    const replayed = row.lastStep !== null && (await matchTotp(secret, code, { nowMs: input.nowMs })) !== null;
    return { ok: false, reason: replayed ? "code already used" : "wrong code" };
  }
  if (!isRecoveryCode(code)) return { ok: false, reason: "wrong code" };
  const hash = hashRecoveryCode(code);
  const used = await tx
    .update(userRecoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(userRecoveryCodes.userId, input.userId), eq(userRecoveryCodes.codeHash, hash), isNull(userRecoveryCodes.usedAt)))
    .returning({ hash: userRecoveryCodes.codeHash });
  if (used.length > 0) return { ok: true, method: "recovery_code" };
  const [spent] = await tx.select({ hash: userRecoveryCodes.codeHash }).from(userRecoveryCodes).where(and(eq(userRecoveryCodes.userId, input.userId), eq(userRecoveryCodes.codeHash, hash)));
  return { ok: false, reason: spent ? "recovery code already used" : "wrong code" };
}

/** Turns two-factor sign-in off, with a current code (or a recovery code): the secret and the recovery codes are deleted. */
export async function disableTwoFactor(db: Db, input: { userId: string; code: string; actor: Actor; nowMs?: number }) {
  await refuseWhileThrottled(input.userId);
  const outcome = await db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    if (!(await hasTwoFactor(t, input.userId))) throw new DomainError("conflict", "Two-factor sign-in is not on");
    const check = await useSecondFactor(t, input);
    if (!check.ok) return check;
    await tx.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, input.userId));
    await tx.delete(userTotp).where(eq(userTotp.userId, input.userId));
    await logInEveryAccount(t, input.userId, input.actor, { action: "two_factor.disabled", objectType: "user", objectId: input.userId, before: { method: "totp" }, after: { with: check.method } });
    return check;
  });
  if (!outcome.ok) {
    await countWrongCode(input.userId);
    throw forbidden(outcome.reason === "code already used" ? "This code was already used: wait for the next one" : "Wrong code");
  }
  return { enabled: false as const };
}

/**
 * An owner resets a member's two-factor sign-in (a lost authenticator): it is off, and the member
 * enrols again. Two-factor sign-in belongs to the user, not the account, so an owner may reset it
 * only when they own every account the member belongs to; their own is turned off with a code.
 */
export async function resetMemberTwoFactor(db: Db, input: { accountId: string; ownerId: string; userId: string; actor: Actor }) {
  if (input.userId === input.ownerId) throw forbidden("Turn your own two-factor sign-in off with a current code (DELETE /auth/user/two-factor)");
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    const theirs = await listMemberships(t, input.userId);
    if (!theirs.some((m) => m.accountId === input.accountId)) throw notFound(`User ${input.userId} is not a member of this account`);
    const mine = new Map((await listMemberships(t, input.ownerId)).map((m) => [m.accountId, m.role]));
    if (theirs.some((m) => mine.get(m.accountId) !== "owner")) {
      throw forbidden("This member also belongs to an account you do not own: an owner of every account they belong to, or the operator, may reset it");
    }
    const [row] = await tx.select({ confirmedAt: userTotp.confirmedAt }).from(userTotp).where(eq(userTotp.userId, input.userId)).for("update");
    if (!row) return { user_id: input.userId, reset: false };
    await tx.delete(userRecoveryCodes).where(eq(userRecoveryCodes.userId, input.userId));
    await tx.delete(userTotp).where(eq(userTotp.userId, input.userId));
    for (const m of theirs) {
      await recordActivity(t, m.accountId, input.actor, { action: "two_factor.reset", objectType: "user", objectId: input.userId, before: { email: m.email, enabled: Boolean(row.confirmedAt) }, after: { enabled: false } });
    }
    return { user_id: input.userId, reset: true };
  });
}

export interface AccountSecurity {
  require_two_factor: boolean;
  required_since: string | null;
  /** Members who will be sent to enrolment at their next page. */
  members_without_two_factor: number;
}

/** The account's two-factor requirement, and how many members still lack a second factor. */
export async function getAccountSecurity(db: Db, accountId: string): Promise<AccountSecurity> {
  const [account] = await db.select({ requiredAt: accounts.requireTwoFactorAt }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound(`Account ${accountId} not found`);
  const [{ n }] = rows<{ n: number }>(
    await db.execute(sql`SELECT count(*)::int AS n FROM account_members m
                          WHERE m.account_id = ${accountId}
                            AND NOT EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = m.user_id AND t.confirmed_at IS NOT NULL)`),
  );
  return { require_two_factor: account.requiredAt !== null, required_since: account.requiredAt?.toISOString() ?? null, members_without_two_factor: Number(n) };
}

/**
 * The owner's switch: every member must sign in with a second factor (those without one are sent
 * to enrolment before anything else). An owner without two-factor sign-in cannot turn it on: they
 * would lock themselves into enrolment and impose what they do not use.
 */
export async function setRequireTwoFactor(db: Db, input: { accountId: string; ownerId: string; require: boolean; actor: Actor }): Promise<AccountSecurity> {
  if (input.require && !(await hasTwoFactor(db, input.ownerId))) {
    throw new DomainError("conflict", "Turn on your own two-factor sign-in before requiring it of every member");
  }
  await db.transaction(async (tx) => {
    const [account] = await tx.select({ requiredAt: accounts.requireTwoFactorAt }).from(accounts).where(eq(accounts.id, input.accountId)).for("update");
    if (!account) throw notFound(`Account ${input.accountId} not found`);
    if ((account.requiredAt !== null) === input.require) return;
    await tx.update(accounts).set({ requireTwoFactorAt: input.require ? new Date() : null }).where(eq(accounts.id, input.accountId));
    await recordActivity(tx as unknown as Db, input.accountId, input.actor, {
      action: "two_factor.required",
      objectType: "account",
      objectId: input.accountId,
      before: { require_two_factor: !input.require },
      after: { require_two_factor: input.require },
    });
  });
  return getAccountSecurity(db, input.accountId);
}

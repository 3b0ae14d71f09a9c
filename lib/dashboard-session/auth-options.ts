import type { AuthOptions, User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { eq } from "drizzle-orm";
import { getDatabase } from "../db";
import { users } from "../db/schema/users";
import { listMemberships, touchSignIn } from "../accounts/members";
import { type Actor, recordActivity, recordInAccounts } from "../accounts/activity";
import { hasTwoFactor, useSecondFactor } from "../accounts/two-factor";
import type { Db } from "../db/types";
import { verifyPassword } from "../auth/passwords";
import { stampedClientAddress } from "../http/client-address";
import { getDashboardSecret } from "./auth-secret";
import { loginThrottle } from "./login-throttle";
import { failedSignIns, type SignInFailureKind } from "./failed-sign-ins";
import { TWO_FACTOR_INVALID, TWO_FACTOR_REQUIRED, loginThrottledError } from "../dashboard/login-errors";

const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

// Compared against when the email is unknown, so a miss costs the same bcrypt time as a hit
// and response timing does not reveal which emails have accounts.
const DUMMY_HASH = "$2b$11$.GJetqwZWISFIDa8DYR.8.etkp14BqdzpqNBBXZtTpthtc7LdY/mi";

/** The credentials provider's check (exported for the sign-in tests). */
export async function authorizeCredentials(
  credentials: Partial<Record<"email" | "password" | "code", string>> | undefined,
  req: { headers?: Record<string, unknown> },
): Promise<User | null> {
  const email = credentials?.email?.trim().toLowerCase() ?? "";
  const password = credentials?.password ?? "";
  if (!email || !password) return null;
  const address = stampedClientAddress(req.headers);
  const check = await loginThrottle.begin(address, email);
  if (!check.allowed) throw new Error(loginThrottledError(check.retryAfterSeconds));

  const { db } = await getDatabase();
  const rows = await db.select({ id: users.id, email: users.email, passwordHash: users.passwordHash }).from(users).where(eq(users.email, email)).limit(1);
  const user = rows[0];
  const valid = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  const userAgent = typeof req.headers?.["user-agent"] === "string" ? req.headers["user-agent"] : null;
  const actor: Actor = { type: "user", id: user?.id ?? null, label: email, ipAddress: address, userAgent };
  // A wrong password needs no call: the attempt `begin` took already counts as a failure.
  if (!user || !valid) {
    if (user) await recordFailure(db, user.id, actor, "password", "wrong password");
    return null;
  }
  // The account the user last signed in to (a user removed from every account cannot sign in).
  const memberships = await listMemberships(db, user.id);
  const account = memberships[0];
  if (!account) return null;
  // Two-factor sign-in: without a code the form asks for one, keeping what was typed (this attempt
  // was no failure); a wrong or reused code stays counted by the throttle as a wrong password does.
  let secondFactor: string | undefined;
  if (await hasTwoFactor(db, user.id)) {
    const code = credentials?.code?.trim() ?? "";
    if (!code) {
      await loginThrottle.release(address, email);
      throw new Error(TWO_FACTOR_REQUIRED);
    }
    const check = await db.transaction((tx) => useSecondFactor(tx as unknown as Db, { userId: user.id, code }));
    if (!check.ok) {
      await recordFailure(db, user.id, actor, "second_factor", `second factor: ${check.reason}`);
      throw new Error(TWO_FACTOR_INVALID);
    }
    secondFactor = check.method;
  }
  await loginThrottle.succeeded(address, email);
  await touchSignIn(db, user.id, account.accountId);
  await recordActivity(db, account.accountId, actor, { action: "user.signed_in", objectType: "user", objectId: user.id, ...(secondFactor ? { after: { second_factor: secondFactor } } : {}) });
  return { id: user.id, email: user.email, accountId: account.accountId, role: account.role };
}

/**
 * Logs a failed sign-in in every account the user belongs to (a password opens all of them), but
 * only the first of its kind in the user's window (`failedSignIns`): an attacker's guesses cost the
 * log one entry per account and window, not one per guess.
 */
async function recordFailure(db: Db, userId: string, actor: Actor, kind: SignInFailureKind, reason: string): Promise<void> {
  const entry = failedSignIns.note(userId, kind);
  if (!entry.write) return;
  const accountIds = (await listMemberships(db, userId)).map((m) => m.accountId);
  const previous = entry.previousWindow && { started_at: entry.previousWindow.startedAt.toISOString(), failures: entry.previousWindow.failures };
  await recordInAccounts(db, accountIds, actor, {
    action: "user.sign_in_failed",
    objectType: "user",
    objectId: userId,
    after: { reason, window_minutes: entry.windowMinutes, ...(previous ? { previous_window: previous } : {}) },
  });
}

/**
 * next-auth options for dashboard sessions (credentials, JWT cookie). Built per request because
 * the secret may live in the database, which must never be opened while `next build` runs.
 */
export async function buildAuthOptions(): Promise<AuthOptions> {
  return {
    secret: await getDashboardSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login", error: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
          code: { label: "Authentication code", type: "text" },
        },
        authorize: authorizeCredentials,
      }),
    ],
    callbacks: {
      async jwt({ token, user, trigger, session }) {
        // `user` is present only on the sign-in request: copy what later requests need.
        if (user) {
          token.userId = user.id;
          token.accountId = user.accountId;
          token.role = user.role;
          token.email = user.email;
        }
        // Switching accounts (`useSession().update({ accountId })`): only to an account the user belongs to.
        const wanted = (session as { accountId?: unknown } | undefined)?.accountId;
        if (trigger === "update" && token.userId && typeof wanted === "string") {
          const { db } = await getDatabase();
          const target = (await listMemberships(db, token.userId)).find((m) => m.accountId === wanted);
          if (target) {
            token.accountId = target.accountId;
            token.role = target.role;
            await touchSignIn(db, token.userId, target.accountId);
          }
        }
        return token;
      },
      session({ session, token }) {
        if (token.userId && token.accountId && token.role) {
          session.user = { id: token.userId, accountId: token.accountId, role: token.role, email: token.email ?? "" };
        }
        return session;
      },
    },
  };
}

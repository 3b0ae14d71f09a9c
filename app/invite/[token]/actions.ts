"use server";

import { headers } from "next/headers";
import { z } from "zod";
import { getDatabase } from "@/lib/db";
import { SEPARATE_DUTIES, acceptInvitation, describeInvitation, touchSignIn } from "@/lib/accounts/members";
import { loginThrottle } from "@/lib/dashboard-session/login-throttle";
import { DomainError } from "@/lib/errors";
import { stampedClientAddress } from "@/lib/http/client-address";

const AcceptInput = z.object({ token: z.string().min(1).max(200), password: z.string().min(1).max(1024) });

export type AcceptResult =
  | { ok: true; email: string }
  | { ok: false; reason: "unknown" | "expired" | "accepted" | "revoked" | "wrong_password" | "weak_password" | "separate_duties" | "throttled"; retryAfterSeconds?: number };

/**
 * Accepts an invitation from its page: a new user's password becomes theirs, an existing user's
 * proves it is them. The client then signs in with the same email and password. An existing
 * user's password is throttled like a sign-in, since the page lets anyone holding the link try it.
 */
export async function acceptInvitationAction(input: { token: string; password: string }): Promise<AcceptResult> {
  const parsed = AcceptInput.safeParse(input);
  if (!parsed.success) return { ok: false, reason: "unknown" };
  const { token, password } = parsed.data;
  const { db } = await getDatabase();
  const described = await describeInvitation(db, token);
  if (described.status !== "pending") return { ok: false, reason: described.status };

  const requestHeaders = Object.fromEntries((await headers()).entries());
  const address = stampedClientAddress(requestHeaders);
  const userAgent = requestHeaders["user-agent"] ?? null;
  if (described.existingUser) {
    const check = await loginThrottle.begin(address, described.email);
    if (!check.allowed) return { ok: false, reason: "throttled", retryAfterSeconds: check.retryAfterSeconds };
  }
  try {
    const accepted = await acceptInvitation(db, { token, password, actor: { ipAddress: address, userAgent } });
    if (described.existingUser) await loginThrottle.succeeded(address, described.email);
    // Sign-in opens the account used last: mark this one, so the sign-in that follows (or a
    // later one on the login page, after a second factor) lands in the account just joined.
    await touchSignIn(db, accepted.user_id, accepted.account_id);
    return { ok: true, email: accepted.email };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    if (err.code === "forbidden") return { ok: false, reason: "wrong_password" };
    if (err.code === "invalid_input") return { ok: false, reason: "weak_password" };
    if (err.details?.rule === SEPARATE_DUTIES) return { ok: false, reason: "separate_duties" };
    // Used, revoked or expired between the page's render and the submit: say which.
    const now = await describeInvitation(db, token);
    return { ok: false, reason: now.status === "pending" ? "unknown" : now.status };
  }
}

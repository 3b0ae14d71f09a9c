// The dashboard session a browser carries, read outside Next (the API's connect callback): the
// next-auth cookie, decrypted with the same secret the dashboard signs it with.
import type { Db } from "../db/types";
import { getAuthSecret } from "../auth/app-secret";
import { lazySdk } from "../lazy-sdk";
import type { UserRole } from "../vocab/roles";

const nextAuthJwt = lazySdk(() => import("next-auth/jwt"));

const COOKIE_NAMES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

function cookieValue(header: string, name: string): string | undefined {
  // A large session is split into `<name>.0`, `<name>.1`, … (next-auth's chunking); joined in order.
  const pairs = header.split(";").map((p) => p.trim().split("=")).filter((p) => p.length >= 2);
  const whole = pairs.find(([k]) => k === name);
  if (whole) return decodeURIComponent(whole.slice(1).join("="));
  const chunks = pairs
    .filter(([k]) => k.startsWith(`${name}.`) && /^\d+$/.test(k.slice(name.length + 1)))
    .sort((a, b) => Number(a[0].slice(name.length + 1)) - Number(b[0].slice(name.length + 1)));
  return chunks.length ? chunks.map((c) => decodeURIComponent(c.slice(1).join("="))).join("") : undefined;
}

/** The signed-in dashboard user of a request's cookies, or null (no session, expired, or not ours). */
export async function browserSessionUser(db: Db, cookieHeader: string | undefined): Promise<{ userId: string; accountId: string } | null> {
  if (!cookieHeader) return null;
  const token = COOKIE_NAMES.map((n) => cookieValue(cookieHeader, n)).find((v) => v !== undefined);
  if (!token) return null;
  const secret = process.env.NEXTAUTH_SECRET ?? (await getAuthSecret(db));
  const { decode } = await nextAuthJwt();
  try {
    const session = await decode({ token, secret });
    return typeof session?.userId === "string" && typeof session.accountId === "string" ? { userId: session.userId, accountId: session.accountId } : null;
  } catch {
    return null;
  }
}

/** A session cookie for `user` (tests sign a browser in without the login page). */
export async function sessionCookie(db: Db, user: { userId: string; accountId: string; role: UserRole; email?: string }): Promise<string> {
  const secret = process.env.NEXTAUTH_SECRET ?? (await getAuthSecret(db));
  const { encode } = await nextAuthJwt();
  const token = await encode({ token: { sub: user.userId, userId: user.userId, accountId: user.accountId, role: user.role, email: user.email }, secret });
  return `next-auth.session-token=${token}`;
}

import { cache } from "react";
import { getServerSession, type Session } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { getDatabase } from "../db";
import { getMembership } from "../accounts/members";
import { DomainError } from "../errors";
import { loginPathFor, PAGE_PATH_HEADER } from "../http/page-path";
import { buildAuthOptions } from "./auth-options";

export type DashboardUser = Session["user"];

/**
 * The signed-in dashboard user for a server component, or null. The membership is read again on
 * every request: a member removed from the account is signed out of it at their next request,
 * and a changed role applies at once (the cookie's copy is only a hint). Read once per request
 * (React's `cache`): the layout, the page and its metadata each ask.
 */
export const getDashboardUser = cache(async (): Promise<DashboardUser | null> => {
  const session = await getServerSession(await buildAuthOptions());
  const user = session?.user;
  if (!user?.id || !user.accountId) return null;
  const { db } = await getDatabase();
  try {
    const member = await getMembership(db, user.id, user.accountId);
    return { ...user, role: member.role };
  } catch (err) {
    if (err instanceof DomainError && err.code === "not_found") return null;
    throw err;
  }
});

/** The signed-in user; anyone else is sent to the login page, and from there back to this page. */
export async function requireDashboardUser(): Promise<DashboardUser> {
  const user = await getDashboardUser();
  if (!user) redirect(loginPathFor((await headers()).get(PAGE_PATH_HEADER)));
  return user;
}

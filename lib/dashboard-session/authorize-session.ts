import { redirect } from "next/navigation";
import { getDatabase } from "../db";
import { getMembership } from "../accounts/members";
import { DomainError } from "../errors";
import { getDashboardUser } from "./session";

export interface AuthorizingUser {
  id: string;
  email: string;
  accountId: string;
  accountName: string;
}

async function loadUser(id: string, accountId: string): Promise<AuthorizingUser | null> {
  const { db } = await getDatabase();
  try {
    const m = await getMembership(db, id, accountId);
    return { id: m.userId, email: m.email, accountId: m.accountId, accountName: m.accountName };
  } catch (err) {
    if (err instanceof DomainError && err.code === "not_found") return null;
    throw err;
  }
}

/**
 * The user deciding an OAuth request (device verification, consent): the dashboard session is
 * the login. Without one, the login page brings the person back to `returnPath` afterwards. The
 * user is read again from the database: a deleted user's cookie approves nothing.
 */
export async function requireAuthorizingUser(returnPath: string): Promise<AuthorizingUser> {
  const session = await getDashboardUser();
  const user = session ? await loadUser(session.id, session.accountId) : null;
  if (!user) redirect(`/login?callbackUrl=${encodeURIComponent(returnPath)}`);
  return user;
}

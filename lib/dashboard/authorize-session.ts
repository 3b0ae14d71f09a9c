import { eq } from "drizzle-orm";
import { redirect } from "next/navigation";
import { getDatabase } from "../db";
import { accounts } from "../db/schema";
import { getUserById } from "../accounts/create-user";
import { DomainError } from "../errors";
import { getDashboardUser } from "./session";

export interface AuthorizingUser {
  id: string;
  email: string;
  accountId: string;
  accountName: string;
}

async function loadUser(id: string): Promise<AuthorizingUser | null> {
  const { db } = await getDatabase();
  try {
    const user = await getUserById(db, id);
    const [account] = await db.select({ name: accounts.name }).from(accounts).where(eq(accounts.id, user.accountId));
    return { id: user.id, email: user.email, accountId: user.accountId, accountName: account?.name ?? user.accountId };
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
  const user = session ? await loadUser(session.id) : null;
  if (!user) redirect(`/login?callbackUrl=${encodeURIComponent(returnPath)}`);
  return user;
}

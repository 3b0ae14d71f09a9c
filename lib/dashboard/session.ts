import { getServerSession, type Session } from "next-auth";
import { redirect } from "next/navigation";
import { buildAuthOptions } from "./auth-options";

export type DashboardUser = Session["user"];

/** The signed-in dashboard user for a server component, or null. */
export async function getDashboardUser(): Promise<DashboardUser | null> {
  const session = await getServerSession(await buildAuthOptions());
  return session?.user?.id ? session.user : null;
}

/** The signed-in user; anyone else is sent to the login page. */
export async function requireDashboardUser(): Promise<DashboardUser> {
  const user = await getDashboardUser();
  if (!user) redirect("/login");
  return user;
}

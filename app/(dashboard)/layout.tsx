import type { ReactNode } from "react";
import { getDatabase } from "@/lib/db";
import { listMemberships } from "@/lib/accounts/members";
import { mustEnrol } from "@/lib/accounts/two-factor";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { AppShell } from "@/components/shell/app-shell";
import { SecurityView } from "./security/_components/security-view";

// Reads the session (and, under `next dev`, the database): never prerendered at build time.
export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await requireDashboardUser();
  // The accounts this user may switch to (name and role in each), for the shell's account menu.
  const { db } = await getDatabase();
  const accounts = (await listMemberships(db, user.id)).map((m) => ({ accountId: m.accountId, name: m.accountName, role: m.role }));
  // The account requires two-factor sign-in and this user has none: enrolment in place of any page.
  // The page under it is then never rendered, so none of its data is read or sent.
  const enrolFirst = await mustEnrol(db, user.id, user.accountId);
  return (
    <AppShell user={{ email: user.email, role: user.role, accountId: user.accountId, accounts }}>
      {enrolFirst ? <SecurityView user={user} enrolmentRequired /> : children}
    </AppShell>
  );
}

import type { ReactNode } from "react";
import { requireDashboardUser } from "@/lib/dashboard/session";
import { AppShell } from "@/components/shell/app-shell";

// Reads the session (and, under `next dev`, the database): never prerendered at build time.
export const dynamic = "force-dynamic";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await requireDashboardUser();
  return <AppShell user={{ email: user.email, role: user.role }}>{children}</AppShell>;
}

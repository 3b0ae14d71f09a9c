import type { Metadata } from "next";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { SecurityView } from "./_components/security-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("twoFactor.pageTitle") };
}

export default async function SecurityPage() {
  const user = await requireDashboardUser();
  return <SecurityView user={user} />;
}

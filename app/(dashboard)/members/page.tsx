import type { Metadata } from "next";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { MembersPanel } from "./_components/members-panel";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("members.title") };
}

export default async function MembersPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  // The API refuses changes by anyone but an owner; the page says so instead of offering them.
  return (
    <>
      <PageHeader title={t("members.title")} description={t("members.subtitle")} />
      <MembersPanel currentUserId={user.id} canManage={user.role === "owner"} />
    </>
  );
}

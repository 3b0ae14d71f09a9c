import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { ConnectionsPanel } from "./_components/connections-panel";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("connections.title") };
}

export default async function ConnectionsPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("connections.title")} description={t("connections.subtitle")} />
      {/* The callback's banner and the time zone come from the URL (useSearchParams). */}
      <Suspense>
        <ConnectionsPanel currentUserId={user.id} role={user.role} />
      </Suspense>
    </>
  );
}

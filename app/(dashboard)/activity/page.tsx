import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { ActivityView } from "./_components/activity-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("activity.title") };
}

export default async function ActivityPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("activity.title")} description={t("activity.subtitle")} />
      <Suspense>
        <ActivityView isSupport={user.role === "support"} />
      </Suspense>
    </>
  );
}

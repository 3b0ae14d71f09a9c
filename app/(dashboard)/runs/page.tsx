import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { RunsView } from "./_components/runs-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("runs.title") };
}

export default async function RunsPage() {
  const t = translator(await getRequestLocale());
  await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("runs.title")} description={t("runs.subtitle")} />
      <Suspense>
        <RunsView />
      </Suspense>
    </>
  );
}

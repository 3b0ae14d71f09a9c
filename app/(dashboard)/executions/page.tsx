import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { ExecutionsView } from "./_components/executions-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("executions.title") };
}

export default async function ExecutionsPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("executions.title")} description={t("executions.subtitle")} />
      <Suspense>
        <ExecutionsView isSupport={user.role === "support"} />
      </Suspense>
    </>
  );
}

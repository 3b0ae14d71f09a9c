import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { UsageView } from "./_components/usage-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("usage.title") };
}

export default async function UsagePage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("usage.title")} description={t("usage.subtitle")} />
      <Suspense>
        <UsageView isSupport={user.role === "support"} />
      </Suspense>
    </>
  );
}

import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { PageHeader } from "@/components/ui/page-header";
import { BalancePanel } from "./_components/balance-panel";
import { OverviewActivity } from "./_components/overview-activity";
import { UpcomingExpirations } from "./_components/upcoming-expirations";
import { TightestBudget } from "./_components/tightest-budget";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("overview.title") };
}

export default async function OverviewPage() {
  const t = translator(await getRequestLocale());
  return (
    <>
      <PageHeader title={t("overview.title")} description={t("overview.subtitle")} />
      <BalancePanel />
      <UpcomingExpirations />
      <TightestBudget />
      <Suspense>
        <OverviewActivity />
      </Suspense>
    </>
  );
}

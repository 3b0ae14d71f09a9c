import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { BalancePanel } from "./_components/balance-panel";
import { OverviewActivity } from "./_components/overview-activity";
import { SupportHome } from "./_components/support-home";
import { UpcomingExpirations } from "./_components/upcoming-expirations";
import { TightestBudget } from "./_components/tightest-budget";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  const user = await requireDashboardUser();
  return { title: translator(await getRequestLocale())(user.role === "support" ? "support.title" : "overview.title") };
}

export default async function OverviewPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  // Support staff's own account has nothing to show; their work is in the customers' accounts.
  if (user.role === "support") {
    return (
      <>
        <PageHeader title={t("support.title")} description={t("support.subtitle")} />
        <SupportHome />
      </>
    );
  }
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

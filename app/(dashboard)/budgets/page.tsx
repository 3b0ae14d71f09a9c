import type { Metadata } from "next";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { PageTimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { BudgetsSection } from "./_components/budgets-section";
import { AlertSettingsForm } from "./_components/alert-settings-form";
import { WebhooksSection } from "./_components/webhooks-section";
import { NotificationList } from "./_components/notification-list";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("budgetsPage.title") };
}

export default async function BudgetsPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  // The API refuses changes by anyone but the owner; the page says so instead of offering them.
  const canEdit = user.role === "owner";
  return (
    <>
      <PageHeader title={t("budgetsPage.title")} description={t("budgetsPage.subtitle")} actions={<PageTimeZoneSwitch />} />
      <div className="space-y-10">
        <BudgetsSection />
        <AlertSettingsForm canEdit={canEdit} />
        <WebhooksSection canEdit={canEdit} />
        <NotificationList />
      </div>
    </>
  );
}

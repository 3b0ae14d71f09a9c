import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { PageTimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { BillingView } from "./_components/billing-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("billing.title") };
}

export default async function BillingPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("billing.title")} description={t("billing.subtitle")} actions={<PageTimeZoneSwitch />} />
      <Suspense>
        {/* Only the owner buys (the API refuses anyone else); members and support read the payments. */}
        <BillingView canBuy={user.role === "owner"} />
      </Suspense>
    </>
  );
}

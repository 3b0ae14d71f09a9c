import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { ConsoleView } from "./_components/console-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("console.title") };
}

export default async function ConsolePage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("console.title")} description={t("console.subtitle")} />
      <Suspense>
        <ConsoleView userId={user.id} accountId={user.accountId} />
      </Suspense>
    </>
  );
}

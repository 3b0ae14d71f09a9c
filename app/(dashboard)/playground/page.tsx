import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { PlaygroundView } from "./_components/playground-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("playground.title") };
}

export default async function PlaygroundPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("playground.title")} description={t("playground.subtitle")} />
      <Suspense>
        <PlaygroundView userId={user.id} accountId={user.accountId} />
      </Suspense>
    </>
  );
}

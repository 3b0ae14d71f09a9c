import type { Metadata } from "next";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { KeysPanel } from "./_components/keys-panel";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("keys.title") };
}

export default async function KeysPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("keys.title")} description={t("keys.subtitle")} />
      <KeysPanel userId={user.id} accountId={user.accountId} />
    </>
  );
}

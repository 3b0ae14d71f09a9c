import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { ButtonLink } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { LedgerView } from "./_components/ledger-view";

export const dynamic = "force-dynamic";

export async function generateMetadata(): Promise<Metadata> {
  return { title: translator(await getRequestLocale())("ledger.title") };
}

export default async function LedgerPage() {
  const t = translator(await getRequestLocale());
  const user = await requireDashboardUser();
  return (
    <>
      <PageHeader
        title={t("ledger.title")}
        description={t("ledger.subtitle")}
        actions={
          <ButtonLink href="/statements" data-testid="ledger-statements-link">
            {t("statements.link")}
          </ButtonLink>
        }
      />
      <Suspense>
        <LedgerView isSupport={user.role === "support"} />
      </Suspense>
    </>
  );
}

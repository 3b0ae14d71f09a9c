import type { Metadata } from "next";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { PageHeader } from "@/components/ui/page-header";
import { ComingSoon } from "@/components/ui/coming-soon";

/** Pages whose features arrive with later issues. */
export type PlannedPage = "playground" | "console" | "usage" | "ledger" | "executions" | "keys";

export async function plannedPageMetadata(page: PlannedPage): Promise<Metadata> {
  const t = translator(await getRequestLocale());
  return { title: t(`${page}.title`) };
}

export async function PlaceholderPage({ page }: { page: PlannedPage }) {
  const t = translator(await getRequestLocale());
  return (
    <>
      <PageHeader title={t(`${page}.title`)} />
      <ComingSoon
        heading={t("placeholder.comingWith", { feature: t(`${page}.feature`) })}
        description={t(`${page}.description`)}
        note={t("placeholder.noData")}
      />
    </>
  );
}

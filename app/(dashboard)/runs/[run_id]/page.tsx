import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { PageHeader } from "@/components/ui/page-header";
import { RunView } from "./_components/run-view";

export const dynamic = "force-dynamic";

/** The segment as the run's id: Next may hand it over still percent-encoded. */
function runIdOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function generateMetadata({ params }: { params: Promise<{ run_id: string }> }): Promise<Metadata> {
  const { run_id } = await params;
  return { title: `${translator(await getRequestLocale())("run.title")} ${runIdOf(run_id)}` };
}

export default async function RunPage({ params }: { params: Promise<{ run_id: string }> }) {
  const { run_id } = await params;
  const t = translator(await getRequestLocale());
  await requireDashboardUser();
  return (
    <>
      <PageHeader title={t("run.title")} description={t("run.subtitle")} />
      <Suspense>
        <RunView runId={runIdOf(run_id)} />
      </Suspense>
    </>
  );
}

import type { Metadata } from "next";
import { Suspense } from "react";
import { translator } from "@/lib/dashboard/i18n";
import { getRequestLocale } from "@/lib/dashboard/locale-server";
import { requireDashboardUser } from "@/lib/dashboard-session/session";
import { StatementView } from "../_components/statement-view";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ month: string }> }): Promise<Metadata> {
  const { month } = await params;
  return { title: `${translator(await getRequestLocale())("statements.docTitle")} ${month}` };
}

export default async function StatementPage({ params }: { params: Promise<{ month: string }> }) {
  const { month } = await params;
  const user = await requireDashboardUser();
  return (
    <Suspense>
      <StatementView month={month} isSupport={user.role === "support"} />
    </Suspense>
  );
}

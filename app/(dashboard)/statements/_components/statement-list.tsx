"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock } from "@/components/ui/states";
import { formatDateTime } from "@/lib/dashboard/format";
import { fetchStatements, statementsQueryKey } from "@/lib/dashboard/statements";
import { StatementTargetControls, monthLabel, targetQuery, useStatementTarget } from "./statement-target";

export function StatementList({ isSupport }: { isSupport: boolean }) {
  const { t, locale } = useI18n();
  const [target, update] = useStatementTarget();
  const list = useQuery({ queryKey: statementsQueryKey(target), queryFn: ({ signal }) => fetchStatements(target, signal) });
  return (
    <div className="space-y-6">
      <StatementTargetControls target={target} update={update} isSupport={isSupport} />
      {list.isPending ? (
        <LoadingBlock label={t("statements.loading")} rows={4} />
      ) : list.isError ? (
        <ErrorState title={t("statements.errorTitle")} message={list.error.message} retryLabel={t("common.retry")} onRetry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <EmptyState testId="statements-empty" title={t("statements.emptyTitle")} body={t("statements.emptyBody")} />
      ) : (
        <Card className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="statements-table">
            <thead className="border-b border-zinc-200 text-xs font-medium text-zinc-500">
              <tr>
                <th className="px-4 py-3 font-medium">{t("statements.month")}</th>
                <th className="px-4 py-3 font-medium">{t("statements.period")}</th>
                <th className="px-4 py-3 font-medium">{t("statements.status")}</th>
                <th className="hidden px-4 py-3 font-medium md:table-cell">{t("statements.hash")}</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {list.data.items.map((m) => (
                <tr key={m.month} data-testid={`statement-row-${m.month}`}>
                  <td className="px-4 py-3 font-medium">
                    <Link className="text-indigo-700 hover:underline" href={`/statements/${m.month}${targetQuery(target)}`}>
                      {monthLabel(m.month, locale)}
                    </Link>
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap text-zinc-600">
                    {formatDateTime(m.period_start, list.data.time_zone, { seconds: false }).slice(0, 10)} – {formatDateTime(new Date(new Date(m.period_end).getTime() - 1).toISOString(), list.data.time_zone, { seconds: false }).slice(0, 10)}
                  </td>
                  <td className="px-4 py-3">
                    <Badge tone={m.status === "final" ? "green" : "amber"}>{m.status === "final" ? t("statements.final") : t("statements.openStatus")}</Badge>
                  </td>
                  <td className="hidden px-4 py-3 font-mono text-xs text-zinc-500 md:table-cell">{m.content_hash ? `${m.content_hash.slice(0, 16)}…` : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      )}
    </div>
  );
}

"use client";

import { useMemo, useState } from "react";
import Link from "next/link";
import { ToolLabel } from "@/components/audit/tool-label";
import { useQuery } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { StatCards } from "@/components/audit/audit-page";
import { ChargeOutcomeBadge } from "@/components/audit/charge-outcome-badge";
import { DetailRow, DetailRows } from "@/components/audit/id-rows";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { ArrowRightIcon } from "@/components/ui/action-icons";
import { ButtonLink } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { fetchUsage, type UsageEventItem } from "@/lib/dashboard/audit-api";
import { chargeOutcomes } from "@/lib/dashboard/audit-vocab";
import { formatCount, formatCredits, formatCreditsUnit, formatDateTime, formatDuration, shortId, todayIn } from "@/lib/dashboard/format";
import { executionHref, usageForRunHref, useAccountInView } from "@/lib/dashboard/links";
import { fetchRun, type RunItem } from "@/lib/dashboard/runs";
import { fetchBreakdown, type Breakdown } from "@/lib/dashboard/spend";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { RunCapLabel, RunCapMeter } from "../../_components/run-cap";

/**
 * The usage list has no ascending order: the page reads the newest RUN_PAGE events of the run
 * and shows them oldest first. A longer run says so and links to Usage for the rest.
 */
const RUN_PAGE = 500;

type RunEvent = UsageEventItem & { seq: number };
const column = createColumnHelper<RunEvent>();

/** One agent run (a delegation token's run_id): its totals from the breakdown and its events in order. */
export function RunView({ runId }: { runId: string }) {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const accountId = useAccountInView();
  const listQuery = { run_id: runId, page_size: String(RUN_PAGE), account_id: accountId };
  const list = useQuery({ queryKey: ["usage", "run", listQuery], queryFn: ({ signal }) => fetchUsage(listQuery, signal) });
  const run = useQuery({ queryKey: ["runs", "one", runId, accountId], queryFn: ({ signal }) => fetchRun(runId, accountId, signal) });
  const total = list.data?.total ?? 0;
  const truncated = list.data !== undefined && total > list.data.items.length;
  // The run's first event bounds the totals' window: the last of the list, or (for a longer run) the list's last page of one.
  const oldestQuery = { run_id: runId, page: String(total), page_size: "1", account_id: accountId };
  const oldest = useQuery({ queryKey: ["usage", "run", oldestQuery], queryFn: ({ signal }) => fetchUsage(oldestQuery, signal), enabled: truncated });
  const firstAt = truncated ? oldest.data?.items[0]?.created_at : list.data?.items.at(-1)?.created_at;
  const lastAt = list.data?.items[0]?.created_at;

  // Up to now (refunds come after their Call); never before the last event, whatever this browser's clock says.
  const [openedAt] = useState(() => Date.now());
  const endDate = lastAt ? new Date(Math.max(openedAt, Date.parse(lastAt) + 1)).toISOString() : undefined;
  const totalsQuery = { run_id: runId, group_by: "model,oauth_client", start_date: firstAt, end_date: endDate, tz: tz.timeZone, limit: "20", account_id: accountId };
  const totals = useQuery({
    queryKey: ["usage", "breakdown", totalsQuery],
    queryFn: ({ signal }) => fetchBreakdown(totalsQuery, signal),
    enabled: Boolean(firstAt && endDate),
  });

  const events = useMemo<RunEvent[]>(() => {
    const items = list.data?.items ?? [];
    const skipped = total - items.length;
    return [...items].reverse().map((e, i) => ({ ...e, seq: skipped + i + 1 }));
  }, [list.data, total]);

  if (list.isPending) return <LoadingBlock label={t("run.loading")} rows={8} />;
  if (list.isError) return <ErrorState title={t("run.errorTitle")} message={list.error.message} retryLabel={t("common.retry")} onRetry={() => void list.refetch()} />;

  return (
    <div className="space-y-6">
      <Card className="space-y-3 p-4 sm:p-5">
        <div className="flex min-w-0 flex-wrap items-center gap-2">
          <span className="text-xs font-medium text-zinc-500">run_id</span>
          <code className="min-w-0 break-all font-mono text-sm text-zinc-900" data-testid="run-id">
            {runId}
          </code>
          <CopyButton value={runId} label={t("common.copy")} />
        </div>
        <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
          <TimeZoneSwitch tz={tz} />
          <div className="flex flex-wrap gap-2">
            <ButtonLink size="sm" variant="ghost" href={accountId ? `/runs?${new URLSearchParams({ account_id: accountId })}` : "/runs"} data-testid="run-to-runs">
              {t("run.allRuns")}
            </ButtonLink>
            <ButtonLink size="sm" href={usageForRunHref(runId, accountId)} data-testid="run-to-usage">
              {t("run.toUsage")}
              <ArrowRightIcon width={16} height={16} />
            </ButtonLink>
            {firstAt && (
              <ButtonLink size="sm" href={`/spend?${new URLSearchParams({ group_by: "tool", run_id: runId, range: "custom", start_date: todayIn(tz.timeZone, new Date(firstAt)), end_date: todayIn(tz.timeZone) })}`}>
                {t("run.toSpend")}
                <ArrowRightIcon width={16} height={16} />
              </ButtonLink>
            )}
          </div>
        </div>
      </Card>

      {run.isError ? (
        <ErrorState title={t("run.capError")} message={run.error.message} retryLabel={t("common.retry")} onRetry={() => void run.refetch()} />
      ) : run.data ? (
        <RunCapCard run={run.data} timeZone={tz.timeZone} />
      ) : null}

      {total === 0 ? (
        <EmptyState testId="run-empty" title={t("run.emptyTitle")} body={t("run.emptyBody")} />
      ) : (
        <>
          {totals.isError ? (
            <ErrorState title={t("run.totalsError")} message={totals.error.message} retryLabel={t("common.retry")} onRetry={() => void totals.refetch()} />
          ) : totals.data ? (
            <RunTotals data={totals.data} firstAt={firstAt} lastAt={lastAt} timeZone={tz.timeZone} />
          ) : (
            <LoadingBlock label={t("run.loadingTotals")} rows={3} />
          )}

          <section aria-labelledby="run-events-heading" className="space-y-3">
            <h2 id="run-events-heading" className="text-sm font-semibold text-zinc-900">
              {t("run.eventsTitle")}
            </h2>
            {truncated && (
              <Notice tone="info" testId="run-truncated">
                {t("run.truncated", { shown: formatCount(events.length, locale), total: formatCount(total, locale) })}{" "}
                <Link href={usageForRunHref(runId, accountId)} className="font-medium underline">
                  {t("run.toUsage")}
                </Link>
              </Notice>
            )}
            <RunEventsTable events={events} timeZone={tz.timeZone} />
          </section>
        </>
      )}
    </div>
  );
}

/** The run's delegation cap (its newest token's `max_credits`) and what was spent against it; every token when there were several. */
function RunCapCard({ run, timeZone }: { run: RunItem; timeZone: string }) {
  const { t, locale } = useI18n();
  return (
    <section aria-labelledby="run-cap-heading" className="space-y-3" data-testid="run-cap-card">
      <h2 id="run-cap-heading" className="text-sm font-semibold text-zinc-900">
        {t("run.capTitle")}
      </h2>
      <Card className="space-y-3 p-4 sm:p-5">
        {run.delegation_count === 0 ? (
          <p className="text-sm text-zinc-600">{t("runs.noTokenHint")}</p>
        ) : (
          <>
            <DetailRows>
              <DetailRow label={t("runs.colCap")}>
                <RunCapLabel run={run} />
              </DetailRow>
              <DetailRow label={t("run.spentUnderToken")}>
                <span className="tabular-nums" data-testid="run-cap-spent">
                  {formatCreditsUnit(run.delegations[0]?.spent_credits ?? 0, locale, t)}
                </span>
              </DetailRow>
              <DetailRow label={t("run.tokenValid", { tz: timeZone })}>
                <span className="tabular-nums">
                  {formatDateTime(run.delegations[0]?.issued_at, timeZone)} → {formatDateTime(run.delegations[0]?.expires_at, timeZone)}
                </span>
              </DetailRow>
            </DetailRows>
            <RunCapMeter run={run} />
            {run.max_credits === null && <p className="text-xs text-zinc-500">{t("run.noCapBody")}</p>}
            {run.delegation_count > 1 && (
              <details className="text-sm">
                <summary className="cursor-pointer text-indigo-700">{t("run.tokensTitle", { count: run.delegation_count })}</summary>
                <ul className="mt-2 space-y-1 text-xs tabular-nums text-zinc-600" data-testid="run-tokens">
                  {run.delegations.map((d) => (
                    <li key={d.issued_at}>
                      {formatDateTime(d.issued_at, timeZone)} · {d.max_credits === null ? t("runs.noCap") : formatCreditsUnit(d.max_credits, locale, t)} ·{" "}
                      {t("run.tokenSpent", { amount: formatCredits(d.spent_credits, locale), n: d.spent_credits })}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </>
        )}
      </Card>
    </section>
  );
}

function RunTotals({ data, firstAt, lastAt, timeZone }: { data: Breakdown; firstAt: string | undefined; lastAt: string | undefined; timeZone: string }) {
  const { t, locale } = useI18n();
  const distinct = (dim: "model" | "oauth_client") => [...new Set(data.groups.map((g) => (g.other ? null : g.label[dim])).filter((v): v is string => Boolean(v)))];
  const models = distinct("model");
  const clients = distinct("oauth_client");
  const counts = data.totals.charge_outcome_counts;
  const spanMs = firstAt && lastAt ? Date.parse(lastAt) - Date.parse(firstAt) : null;
  return (
    <section aria-label={t("run.totalsTitle")} className="space-y-4" data-testid="run-totals">
      <StatCards
        stats={[
          { label: t("spend.statCalls"), value: formatCount(data.totals.calls, locale), testId: "run-total-calls" },
          { label: t("spend.statCharged"), value: formatCount(data.totals.charged_calls, locale), testId: "run-total-charged" },
          { label: t("spend.statSettled"), value: formatCredits(data.totals.settled_credits, locale), testId: "run-total-settled" },
          { label: t("spend.statRefunded"), value: formatCredits(data.totals.refunded_credits, locale), testId: "run-total-refunded" },
        ]}
      />
      <Card className="p-4 sm:p-5">
        <DetailRows>
          <DetailRow label={t("spend.dim.model")}>
            <span data-testid="run-model">{models.length > 0 ? models.join(", ") : "—"}</span>
          </DetailRow>
          <DetailRow label={t("spend.dim.oauth_client")}>
            <span data-testid="run-client">{clients.length > 0 ? clients.join(", ") : "—"}</span>
          </DetailRow>
          <DetailRow label={t("spend.colOutcomes")}>
            <span className="flex flex-wrap gap-1.5" data-testid="run-outcomes">
              {chargeOutcomes
                .filter((o) => counts[o] > 0)
                .map((o) => (
                  <span key={o} className="inline-flex items-center gap-1">
                    <ChargeOutcomeBadge outcome={o} />
                    <span className="tabular-nums text-zinc-700">× {formatCount(counts[o], locale)}</span>
                  </span>
                ))}
            </span>
          </DetailRow>
          <DetailRow label={t("run.span", { tz: timeZone })}>
            <span className="tabular-nums">
              {formatDateTime(firstAt, timeZone)} → {formatDateTime(lastAt, timeZone)}
              {spanMs !== null && <span className="text-zinc-500"> ({formatDuration(spanMs, locale)})</span>}
            </span>
          </DetailRow>
        </DetailRows>
      </Card>
    </section>
  );
}

function RunEventsTable({ events, timeZone }: { events: RunEvent[]; timeZone: string }) {
  const { t, locale } = useI18n();
  const account = useAccountInView();
  const columns = useMemo(
    () => [
      column.accessor("seq", {
        header: () => "#",
        cell: (info) => <span className="tabular-nums text-zinc-500">{info.getValue()}</span>,
        meta: { hideOnPhone: true },
      }),
      column.accessor("created_at", {
        header: () => t("usage.colTime", { tz: timeZone }),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-700">{formatDateTime(info.getValue(), timeZone)}</span>,
        meta: { primary: true },
      }),
      column.accessor("tool_id", {
        header: () => t("run.colTool"),
        cell: (info) => (
          <span className="flex min-w-0 flex-col">
            <ToolLabel name={info.row.original.tool_name} id={info.getValue()} />
            <span className="font-mono text-[11px] text-zinc-500">{info.row.original.event_type}</span>
          </span>
        ),
      }),
      column.accessor("charge_outcome", {
        header: () => t("usage.colOutcome"),
        cell: (info) => <ChargeOutcomeBadge outcome={info.getValue()} />,
      }),
      column.accessor("actual_amount_credits", {
        header: () => t("usage.colCredits"),
        cell: (info) => (
          <span className={info.getValue() > 0 ? "font-medium text-zinc-900" : "text-zinc-500"} data-testid="run-event-credits">
            {formatCredits(info.getValue(), locale)}
          </span>
        ),
        meta: { align: "right" },
      }),
      column.accessor("duration_ms", {
        header: () => t("usage.colDuration"),
        cell: (info) => <span className="text-zinc-600">{formatDuration(info.getValue(), locale)}</span>,
        meta: { align: "right", hideOnPhone: true },
      }),
      column.accessor("execution_id", {
        header: () => t("run.colExecution"),
        cell: (info) => {
          const id = info.getValue() ?? info.row.original.search_id;
          return id ? (
            <Link href={executionHref(id, account)} className="font-mono text-xs text-indigo-700 hover:underline" title={id} data-testid="run-execution-link">
              {shortId(id)}
            </Link>
          ) : (
            <span className="text-zinc-500">—</span>
          );
        },
      }),
    ],
    [t, locale, timeZone, account],
  );
  return <DataTable data={events} columns={columns} caption={t("run.eventsTitle")} getRowId={(e) => e.id} rowTestId="run-event" />;
}

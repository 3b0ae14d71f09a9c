"use client";

import Link from "next/link";
import { ToolLabel } from "@/components/audit/tool-label";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { BucketChart, type ChartRow } from "@/components/charts/bar-chart";
import { ChargeOutcomeBadge } from "@/components/audit/charge-outcome-badge";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { LoadingBlock } from "@/components/ui/states";
import { getAccessToken } from "@/lib/dashboard/api-client";
import { fetchCreditsSpent, fetchLedger, fetchReadiness, fetchUsage, type Readiness, type LedgerSummary, type UsageSummary } from "@/lib/dashboard/audit-api";
import { chargeOutcomeColors, chargeOutcomes } from "@/lib/dashboard/audit-vocab";
import { bucketLabel } from "@/lib/dashboard/buckets";
import { addDays, formatCount, formatCredits, formatDateTime, todayIn } from "@/lib/dashboard/format";
import { executionHref } from "@/lib/dashboard/links";
import { useTimeZone } from "@/lib/dashboard/time-zone";

const WINDOW_DAYS = 7;

// Every Overview request waits for the API token: ask for it while this module loads, so it
// arrives while the page hydrates instead of after.
if (typeof window !== "undefined") getAccessToken().catch(() => undefined);

// Amounts are exact to six decimals; anything smaller is float noise from summing JSON numbers.
const EPSILON = 0.0000005;

interface Spent {
  credits_spent: number;
  charged_event_count: number;
}

/** A spend card's figures, or where they are: the query they come from, pending or failed. */
type SpentState = { isPending: true; isError: false } | { isPending: false; isError: true; error: Error } | { isPending: false; isError: false; data: Spent };

function SpendCard({ label, days, spent }: { label: string; days: number; spent: SpentState }) {
  const { t, locale } = useI18n();
  return (
    <Card className="p-4 sm:p-5">
      <p className="text-sm font-medium text-zinc-600">{label}</p>
      <p className="mt-2 text-2xl font-semibold tabular-nums text-zinc-900" data-testid={`spent-${days}`}>
        {spent.isPending ? "…" : spent.isError ? "—" : formatCredits(spent.data.credits_spent, locale)}
      </p>
      <p className="mt-1 text-xs text-zinc-500">
        {spent.isPending ? "\u00a0" : spent.isError ? spent.error.message : t("overview.spentEvents", { count: spent.data.charged_event_count, n: spent.data.credits_spent })}
      </p>
    </Card>
  );
}

/**
 * Settled credits and charged events of a summary or one of its buckets: what `credits-spent`
 * answers for the same window (an event's settled and actual amounts are one figure).
 */
function spentOf(counts: { settled_credits: number; charged: number; failed_charged_review: number }): Spent {
  return { credits_spent: counts.settled_credits, charged_event_count: counts.charged + counts.failed_charged_review };
}

/** For the window: events' settled credits = ledger consumption = balance change, or the differences. */
function ReconciliationBadge({ usage, ledger, expired, readiness }: { usage: UsageSummary; ledger: LedgerSummary; expired: number; readiness: Readiness }) {
  const { t, locale } = useI18n();
  const settled = usage.settled_credits;
  // Expired credits leave through their own ledger rows (scope=expiry): not usage, so not consumption.
  const consumed = ledger.consumed_credits - expired;
  const balanceDelta = readiness.balance_start === null || readiness.balance_end === null ? 0 : readiness.balance_end - readiness.balance_start;
  // What the balance lost to consumption: its change, minus what was granted and what expired in the window.
  const fromBalance = ledger.granted_credits - expired - balanceDelta;
  const ok = Math.abs(settled - consumed) < EPSILON && Math.abs(consumed - fromBalance) < EPSILON && readiness.ready;
  const fmt = (v: number) => formatCredits(v, locale);
  return (
    <Card className={`p-4 sm:p-5 ${ok ? "" : "border-red-200"}`} data-testid="reconciliation">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-zinc-900">{t("overview.reconTitle", { days: WINDOW_DAYS })}</h3>
        <Badge tone={ok ? "green" : "red"} className="px-2 py-1 text-sm">
          {ok ? t("verdict.reconciled") : t("verdict.broken")}
        </Badge>
      </div>
      <dl className="mt-3 grid grid-cols-1 gap-2 text-sm sm:grid-cols-3">
        <div className="rounded-lg bg-zinc-50 p-3">
          <dt className="text-xs text-zinc-500">{t("overview.reconSettled")}</dt>
          <dd className="mt-0.5 font-semibold tabular-nums">{fmt(settled)}</dd>
        </div>
        <div className="rounded-lg bg-zinc-50 p-3">
          <dt className="text-xs text-zinc-500">{t("overview.reconConsumed")}</dt>
          <dd className="mt-0.5 font-semibold tabular-nums">{fmt(consumed)}</dd>
        </div>
        <div className="rounded-lg bg-zinc-50 p-3">
          <dt className="text-xs text-zinc-500">{t("overview.reconBalance")}</dt>
          <dd className="mt-0.5 font-semibold tabular-nums">{fmt(fromBalance)}</dd>
        </div>
      </dl>
      {!ok && (
        <p className="mt-3 text-sm text-red-700">
          {t("overview.reconDiff", { a: fmt(settled - consumed), b: fmt(consumed - fromBalance) })}
          {!readiness.ready && ` ${t("overview.reconNotReady", { checks: readiness.checks.filter((c) => !c.passed).map((c) => c.name).join(", ") })}`}
        </p>
      )}
      <p className="mt-2 text-xs text-zinc-500">{t("overview.reconNote")}</p>
      {expired > EPSILON && <p className="mt-1 text-xs text-zinc-500">{t("overview.reconExpired", { credits: fmt(expired), n: expired })}</p>}
    </Card>
  );
}

/** Spend, events by charge outcome, the largest charges and reconciliation, from the audit API. */
export function OverviewActivity() {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const today = todayIn(tz.timeZone);
  const window = { start_date: addDays(today, -(WINDOW_DAYS - 1)), end_date: today, tz: tz.timeZone };
  const usageQuery = { ...window, summary: "true", page_size: "1", bucket: "day", limit: "5" };
  const usage = useQuery({ queryKey: ["usage", "summary", usageQuery], queryFn: ({ signal }) => fetchUsage(usageQuery, signal) });
  // The summaries' totals are all the Overview shows: one row of the list and of its sample, not ten.
  const ledgerQuery = { ...window, summary: "true", page_size: "1", bucket: "day", limit: "1" };
  const ledger = useQuery({ queryKey: ["ledger", "summary", ledgerQuery], queryFn: ({ signal }) => fetchLedger(ledgerQuery, signal) });
  const expiredQuery = { ...ledgerQuery, scope: "expiry" };
  const expired = useQuery({ queryKey: ["ledger", "summary", expiredQuery], queryFn: ({ signal }) => fetchLedger(expiredQuery, signal) });
  const readiness = useQuery({ queryKey: ["ledger", "readiness", window], queryFn: ({ signal }) => fetchReadiness(window, signal) });
  const monthQuery = { start_date: addDays(today, -29), end_date: today, tz: tz.timeZone };
  const month = useQuery({ queryKey: ["usage", "spent", monthQuery], queryFn: ({ signal }) => fetchCreditsSpent(monthQuery, signal) });

  const summary = usage.data?.summary;
  // Today and the last 7 days come from the 7-day summary (today is its last day bucket): two requests fewer.
  const todayBucket = summary?.buckets.find((b) => b.bucket_start_local.startsWith(today));
  const fromSummary = (spent: Spent | null | undefined): SpentState =>
    usage.isPending ? usage : usage.isError ? usage : spent ? { isPending: false, isError: false, data: spent } : { isPending: true, isError: false };
  const spentToday = fromSummary(todayBucket && spentOf({ settled_credits: todayBucket.settled_credits, charged: todayBucket.charged_count, failed_charged_review: todayBucket.failed_charged_review_count }));
  const spentWeek = fromSummary(summary && spentOf({ settled_credits: summary.settled_credits, ...summary.charge_outcome_counts }));
  const rows: ChartRow[] = (summary?.buckets ?? []).map((b) => ({
    label: bucketLabel(b.bucket_start_local, summary?.bucket ?? "day"),
    charged: b.charged_count,
    included: b.included_count,
    failed_not_charged: b.failed_not_charged_count,
    failed_charged_review: b.failed_charged_review_count,
  }));

  return (
    <section aria-labelledby="activity-heading" className="mt-8 space-y-4">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <h2 id="activity-heading" className="text-base font-semibold text-zinc-900">
          {t("overview.activity")}
        </h2>
        <TimeZoneSwitch tz={tz} />
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3 sm:gap-4">
        <SpendCard label={t("overview.spentToday")} days={1} spent={spentToday} />
        <SpendCard label={t("overview.spent7")} days={7} spent={spentWeek} />
        <SpendCard label={t("overview.spent30")} days={30} spent={month} />
      </div>

      {usage.isPending ? (
        <LoadingBlock label={t("usage.loadingSummary")} rows={4} />
      ) : usage.isError ? (
        <ErrorState title={t("usage.summaryError")} message={usage.error.message} retryLabel={t("common.retry")} onRetry={() => void usage.refetch()} />
      ) : summary ? (
        <div className="grid gap-4 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
          <Card className="p-4">
            <BucketChart
              title={t("overview.chartTitle", { days: WINDOW_DAYS })}
              axisCaption={t("chart.axis", { bucket: t(`bucket.${summary.bucket}`), tz: summary.tz })}
              data={rows}
              format={(v) => formatCount(v, locale)}
              integer
              series={chargeOutcomes.map((o) => ({ key: o, label: t(`outcome.${o}`), color: chargeOutcomeColors[o], stackId: "events" }))}
              testId="overview-chart"
            />
          </Card>
          <Card className="p-4">
            <h3 className="text-sm font-semibold text-zinc-900">{t("overview.largest")}</h3>
            {summary.max_charge_items.length === 0 ? (
              <p className="mt-3 text-sm text-zinc-500">{t("overview.noCharges")}</p>
            ) : (
              <ol className="mt-2 divide-y divide-zinc-100" data-testid="largest-charges">
                {summary.max_charge_items.map((e) => (
                  <li key={e.id} className="flex items-center justify-between gap-3 py-2 text-sm">
                    <span className="min-w-0">
                      <ToolLabel name={e.tool_name} id={e.tool_id} fallback={e.event_type} />
                      <span className="flex flex-wrap items-center gap-1.5 text-xs text-zinc-500">
                        {formatDateTime(e.created_at, tz.timeZone, { seconds: false })}
                        <ChargeOutcomeBadge outcome={e.charge_outcome} />
                      </span>
                    </span>
                    {e.execution_id ? (
                      <Link href={executionHref(e.execution_id)} prefetch={false} className="shrink-0 font-semibold tabular-nums text-indigo-700 hover:underline">
                        {formatCredits(e.actual_amount_credits, locale)}
                      </Link>
                    ) : (
                      <span className="shrink-0 font-semibold tabular-nums">{formatCredits(e.actual_amount_credits, locale)}</span>
                    )}
                  </li>
                ))}
              </ol>
            )}
          </Card>
        </div>
      ) : null}

      {summary && ledger.data?.summary && expired.data?.summary && readiness.data ? (
        <ReconciliationBadge usage={summary} ledger={ledger.data.summary} expired={expired.data.summary.consumed_credits} readiness={readiness.data} />
      ) : ledger.isError || expired.isError || readiness.isError ? (
        <ErrorState
          title={t("overview.reconError")}
          message={(ledger.error ?? expired.error ?? readiness.error)?.message ?? ""}
          retryLabel={t("common.retry")}
          onRetry={() => {
            void ledger.refetch();
            void expired.refetch();
            void readiness.refetch();
          }}
        />
      ) : null}
    </section>
  );
}

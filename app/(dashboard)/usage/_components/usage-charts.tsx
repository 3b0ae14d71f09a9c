"use client";

import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { BucketChart, type ChartRow } from "@/components/charts/bar-chart";
import { StatCards } from "@/components/audit/audit-page";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { LoadingBlock } from "@/components/ui/states";
import { fetchUsage, type UsageSummary } from "@/lib/dashboard/audit-api";
import { chargeOutcomeColors, chargeOutcomes } from "@/lib/dashboard/audit-vocab";
import { bucketLabel } from "@/lib/dashboard/buckets";
import { formatCount, formatCredits, formatDateTime } from "@/lib/dashboard/format";
import type { UsageView } from "@/lib/dashboard/usage-filters";

function summaryQuery(view: UsageView, extra: Record<string, string> = {}) {
  return { ...view.filter, summary: "true", page_size: "1", bucket: view.bucket, ...extra };
}

/**
 * The bucketed summary of the filtered events: counts stacked by charge outcome, and settled
 * credits split into charged and failed-but-charged (the only outcomes that carry an amount;
 * the split comes from a second summary filtered to failed_charged_review, fetched only when
 * there are such events).
 */
export function UsageCharts({ view }: { view: UsageView }) {
  const { t, locale } = useI18n();
  const query = summaryQuery(view);
  const main = useQuery({ queryKey: ["usage", "summary", query], queryFn: ({ signal }) => fetchUsage(query, signal) });
  const summary = main.data?.summary ?? null;
  const needsSplit = !view.filter.charge_outcome && (summary?.charge_outcome_counts.failed_charged_review ?? 0) > 0;
  const reviewQuery = summaryQuery(view, { charge_outcome: "failed_charged_review" });
  const review = useQuery({ queryKey: ["usage", "summary", reviewQuery], queryFn: ({ signal }) => fetchUsage(reviewQuery, signal), enabled: needsSplit });

  if (main.isPending) return <LoadingBlock label={t("usage.loadingSummary")} rows={5} />;
  if (main.isError) return <ErrorState title={t("usage.summaryError")} message={main.error.message} retryLabel={t("common.retry")} onRetry={() => void main.refetch()} />;
  if (!summary) return null;

  const reviewCredits = new Map((review.data?.summary?.buckets ?? []).map((b) => [b.bucket_start, b.settled_credits]));
  const onlyOutcome = view.filter.charge_outcome;
  const rows: ChartRow[] = summary.buckets.map((b) => {
    const fcr = onlyOutcome === "failed_charged_review" ? b.settled_credits : onlyOutcome ? 0 : (reviewCredits.get(b.bucket_start) ?? 0);
    return {
      label: bucketLabel(b.bucket_start_local, summary.bucket),
      charged: b.charged_count,
      included: b.included_count,
      failed_not_charged: b.failed_not_charged_count,
      failed_charged_review: b.failed_charged_review_count,
      credits_charged: Math.max(0, b.settled_credits - fcr),
      credits_review: fcr,
      pre_settlement: b.pre_settlement_credits,
    };
  });
  const axis = t("chart.axis", { bucket: t(`bucket.${summary.bucket}`), tz: summary.tz });

  return (
    <section aria-label={t("usage.summaryTitle")} className="space-y-4" data-testid="usage-summary">
      <SummaryStats summary={summary} />
      <div className="grid gap-4 lg:grid-cols-2">
        <Card className="p-4">
          <BucketChart
            title={t("usage.chartCounts")}
            axisCaption={axis}
            data={rows}
            format={(v) => formatCount(v, locale)}
            integer
            series={chargeOutcomes.map((o) => ({ key: o, label: t(`outcome.${o}`), color: chargeOutcomeColors[o], stackId: "events" }))}
            testId="chart-counts"
          />
        </Card>
        <Card className="p-4">
          <BucketChart
            title={t("usage.chartCredits")}
            axisCaption={axis}
            data={rows}
            format={(v) => formatCredits(v, locale)}
            series={[
              { key: "credits_charged", label: t("outcome.charged"), color: chargeOutcomeColors.charged, stackId: "credits" },
              { key: "credits_review", label: t("outcome.failed_charged_review"), color: chargeOutcomeColors.failed_charged_review, stackId: "credits" },
              { key: "pre_settlement", label: t("usage.preSettlement"), color: "#f59e0b", kind: "line" },
            ]}
            testId="chart-credits"
          />
        </Card>
      </div>
      <p className="text-xs text-zinc-500">{t("usage.windowNote", { start: formatDateTime(summary.start_date, summary.tz, { seconds: false }), end: formatDateTime(summary.end_date, summary.tz, { seconds: false }), tz: summary.tz })}</p>
    </section>
  );
}

function SummaryStats({ summary }: { summary: UsageSummary }) {
  const { t, locale } = useI18n();
  const stats = [
    { label: t("usage.statEvents"), value: formatCount(summary.total_count, locale), testId: "stat-events" },
    { label: t("usage.statFailures"), value: formatCount(summary.failure_count, locale), testId: "stat-failures" },
    { label: t("usage.statSettled"), value: formatCredits(summary.settled_credits, locale), testId: "stat-settled" },
    { label: t("usage.statPre"), value: formatCredits(summary.pre_settlement_credits, locale), testId: "stat-pre" },
  ];
  return <StatCards stats={stats} />;
}

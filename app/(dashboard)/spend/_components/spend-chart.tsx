"use client";

import { BucketChart, type ChartRow } from "@/components/charts/bar-chart";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { bucketLabel } from "@/lib/dashboard/buckets";
import { formatCredits } from "@/lib/dashboard/format";
import type { Breakdown, SpendDimension } from "@/lib/dashboard/spend";
import { dimensionInSentence, groupColor, groupLabel } from "./spend-labels";

/** Settled credits per bucket, one stacked series per group and one for "other", in the breakdown's time zone. */
export function SpendChart({ data, dimension }: { data: Breakdown; dimension: SpendDimension }) {
  const { t, locale } = useI18n();
  const bucket = data.bucket ?? "day";
  const rows: ChartRow[] = (data.buckets ?? []).map((b, i) => {
    const row: ChartRow = { label: bucket === "month" ? b.bucket_start_local.slice(0, 7) : bucketLabel(b.bucket_start_local, bucket) };
    data.groups.forEach((g, j) => {
      row[`g${j}`] = g.buckets?.[i]?.settled_credits ?? 0;
    });
    return row;
  });
  const series = data.groups.map((g, j) => ({ key: `g${j}`, label: groupLabel(g, data, dimension, t), color: groupColor(g, j, dimension), stackId: "spend" }));
  return (
    <Card className="p-4">
      <BucketChart
        title={t("spend.chartTitle", { dimension: dimensionInSentence(dimension, t) })}
        axisCaption={t("chart.axis", { bucket: t(`bucket.${bucket}`), tz: data.tz })}
        data={rows}
        series={series}
        format={(v) => formatCredits(v, locale)}
        height={280}
        testId="spend-chart"
      />
    </Card>
  );
}

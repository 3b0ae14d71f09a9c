"use client";

import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useI18n } from "@/components/i18n/i18n-provider";

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
  /** Bars with the same stack id are stacked; a line is drawn over the bars. */
  kind?: "bar" | "line";
  stackId?: string;
}

export type ChartRow = { label: string } & Record<string, number | string>;

/**
 * Bars over time buckets (stacked where series share a stack id), optionally with a line. The
 * x-axis caption states the time zone the buckets are in; the same numbers are in a table for
 * screen readers.
 */
export function BucketChart({
  title,
  data,
  series,
  axisCaption,
  format,
  height = 240,
  integer = false,
  testId,
}: {
  title: string;
  data: ChartRow[];
  series: ChartSeries[];
  /** e.g. "Day (Asia/Shanghai)": says what one bar is and in which time zone. */
  axisCaption: string;
  format: (value: number) => string;
  height?: number;
  /** Counts: no fractional ticks on the value axis. */
  integer?: boolean;
  testId?: string;
}) {
  const { t } = useI18n();
  const empty = data.every((row) => series.every((s) => !Number(row[s.key] ?? 0)));
  return (
    <figure className="min-w-0" data-testid={testId}>
      <figcaption className="mb-2 flex flex-wrap items-baseline justify-between gap-x-3 text-sm font-semibold text-zinc-900">
        {title}
        <span className="text-xs font-normal text-zinc-500" data-testid="chart-axis-caption">
          {axisCaption}
        </span>
      </figcaption>
      {empty ? (
        <div className="flex items-center justify-center rounded-lg border border-dashed border-zinc-200 text-sm text-zinc-500" style={{ height }}>
          {t("chart.noData")}
        </div>
      ) : (
        // The drawing is hidden from assistive technology (the table below carries its numbers), so
        // nothing inside it may take focus: recharts' keyboard layer would make the svg a tab stop.
        <div aria-hidden="true" style={{ height }}>
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e4e7" vertical={false} />
              <XAxis dataKey="label" tick={{ fontSize: 11, fill: "#71717a" }} tickLine={false} axisLine={{ stroke: "#d4d4d8" }} minTickGap={12} />
              <YAxis tick={{ fontSize: 11, fill: "#71717a" }} tickLine={false} axisLine={false} width={48} tickFormatter={(v: number) => format(v)} allowDecimals={!integer} />
              <Tooltip
                formatter={(value, name) => [typeof value === "number" ? format(value) : String(value), String(name)]}
                labelFormatter={(label) => `${String(label)} · ${axisCaption}`}
                contentStyle={{ fontSize: 12, borderRadius: 8, borderColor: "#e4e4e7" }}
                cursor={{ fill: "#f4f4f5" }}
              />
              {/* The dot carries the series' colour; the name stays readable grey (a pale series colour is not). */}
              <Legend wrapperStyle={{ fontSize: 12 }} iconType="circle" iconSize={8} formatter={(value) => <span className="text-zinc-600">{String(value)}</span>} />
              {series.map((s) =>
                s.kind === "line" ? (
                  <Line key={s.key} dataKey={s.key} name={s.label} stroke={s.color} strokeWidth={2} dot={false} type="linear" isAnimationActive={false} />
                ) : (
                  <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} stackId={s.stackId} maxBarSize={36} isAnimationActive={false} />
                ),
              )}
            </ComposedChart>
          </ResponsiveContainer>
        </div>
      )}
      {!empty && (
        // Table elements ignore `sr-only`'s 1px width: the wrapper clips it instead.
        <div className="sr-only">
          <table>
            <caption>
              {title} — {axisCaption}
            </caption>
            <thead>
              <tr>
                <th scope="col">{axisCaption}</th>
                {series.map((s) => (
                  <th key={s.key} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.map((row) => (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  {series.map((s) => (
                    <td key={s.key}>{format(Number(row[s.key] ?? 0))}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </figure>
  );
}

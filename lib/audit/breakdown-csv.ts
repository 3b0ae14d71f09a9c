import type { Breakdown, BreakdownGroup } from "./breakdown";
import { type Cell, csvLine, headerLine } from "./csv";

/** The breakdown as CSV: a line per group, or per bucket and group with buckets; the `other` group last. */
export function breakdownCsv(b: Breakdown): string {
  const dims = b.group_by.flatMap((d) => [d, `${d}_label`]);
  const keyCells = (g: BreakdownGroup): Cell[] => b.group_by.flatMap((d) => (g.other ? ["(other)", "(other)"] : [g.key[d] ?? "", g.label[d] ?? ""]));
  if (b.bucket && b.buckets) {
    let out = headerLine(["bucket_start", "bucket_start_local", "tz", ...dims, "calls", "settled_credits", "refunded_credits"]);
    b.buckets.forEach((bucket, i) => {
      for (const g of b.groups) {
        const v = g.buckets![i];
        out += csvLine([bucket.bucket_start, bucket.bucket_start_local, b.tz, ...keyCells(g), v.calls, v.settled_credits, v.refunded_credits]);
      }
    });
    return out;
  }
  let out = headerLine([
    "start_date", "end_date", "tz", ...dims, "calls", "charged_calls", "charged", "included", "failed_not_charged", "failed_charged_review",
    "pre_settlement_credits", "settled_credits", "refunded_credits",
  ]);
  for (const g of b.groups) {
    const c = g.charge_outcome_counts;
    out += csvLine([
      b.start_date, b.end_date, b.tz, ...keyCells(g), g.calls, g.charged_calls, c.charged, c.included, c.failed_not_charged, c.failed_charged_review,
      g.pre_settlement_credits, g.settled_credits, g.refunded_credits,
    ]);
  }
  return out;
}

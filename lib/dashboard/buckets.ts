import type { Bucket } from "./audit-vocab";

/**
 * An axis label for a bucket from the API's `bucket_start_local` (`YYYY-MM-DDTHH:MM:SS`, already
 * local time in the requested tz): "08-21 14:00" for hours, "2026-08-21" for days and weeks.
 */
export function bucketLabel(local: string, bucket: Bucket | string): string {
  const date = local.slice(0, 10);
  if (bucket === "hour") return `${date.slice(5)} ${local.slice(11, 16)}`;
  return date;
}

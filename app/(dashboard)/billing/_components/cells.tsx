"use client";

import { Badge, type Tone } from "@/components/ui/badge";
import { formatDateTime } from "@/lib/dashboard/format";

/** An instant in the page's zone, on one line: the first column of the Billing tables. */
export function InstantCell({ iso, timeZone }: { iso: string; timeZone: string }) {
  return <span className="whitespace-nowrap tabular-nums text-zinc-700">{formatDateTime(iso, timeZone)}</span>;
}

/** A status as a coloured badge in words, its API value kept for tests as `data-status`. */
export function StatusCell({ status, tone, label, testId, title }: { status: string; tone: Tone; label: string; testId: string; title?: string }) {
  return (
    <span data-testid={testId} data-status={status}>
      <Badge tone={tone} title={title}>
        {label}
      </Badge>
    </span>
  );
}

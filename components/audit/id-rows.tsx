"use client";

import type { ReactNode } from "react";
import Link from "next/link";
import { CopyButton } from "@/components/ui/copy-button";

/** Label / value rows for a detail panel: ids in monospace with a copy button and an optional link. */
export function DetailRows({ children }: { children: ReactNode }) {
  return <dl className="divide-y divide-zinc-100 rounded-lg border border-zinc-200 text-sm">{children}</dl>;
}

export function DetailRow({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-3 px-3 py-2">
      <dt className="break-all text-xs leading-6 text-zinc-500">{label}</dt>
      <dd className="min-w-0 break-words text-zinc-900">{children}</dd>
    </div>
  );
}

export function IdValue({ value, href, testId }: { value: string | null | undefined; href?: string; testId?: string }) {
  if (!value) return <span className="text-zinc-500">—</span>;
  return (
    <span className="flex min-w-0 items-center gap-1">
      {href ? (
        <Link href={href} className="min-w-0 truncate font-mono text-xs text-indigo-700 hover:underline" title={value} data-testid={testId}>
          {value}
        </Link>
      ) : (
        <code className="min-w-0 truncate font-mono text-xs text-zinc-800" title={value} data-testid={testId}>
          {value}
        </code>
      )}
      <CopyButton value={value} />
    </span>
  );
}

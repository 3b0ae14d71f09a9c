import type { ReactNode } from "react";
import { Card } from "./card";
import { InfoIcon } from "./icons";

/** An empty result that says what to do next. */
export function EmptyState({ title, body, action, testId }: { title: string; body?: ReactNode; action?: ReactNode; testId?: string }) {
  return (
    <Card className="px-6 py-10 text-center" data-testid={testId}>
      <span className="mx-auto flex size-10 items-center justify-center rounded-full bg-indigo-50 text-indigo-600">
        <InfoIcon />
      </span>
      <p className="mt-3 text-sm font-semibold text-zinc-900">{title}</p>
      {body && <div className="mx-auto mt-1 max-w-md text-sm text-zinc-500">{body}</div>}
      {action && <div className="mt-4 flex flex-wrap justify-center gap-2">{action}</div>}
    </Card>
  );
}

/** Placeholder rows while data loads; announced once to screen readers. */
export function LoadingBlock({ label, rows = 4, className = "" }: { label: string; rows?: number; className?: string }) {
  return (
    <div aria-busy="true" aria-live="polite" className={className}>
      <span className="sr-only">{label}</span>
      <Card className="space-y-3 p-5">
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="h-4 animate-pulse rounded bg-zinc-100" style={{ width: `${90 - i * 12}%` }} />
        ))}
      </Card>
    </div>
  );
}

export function Notice({ tone = "info", title, children, testId }: { tone?: "info" | "warn" | "error" | "success"; title?: ReactNode; children?: ReactNode; testId?: string }) {
  const styles = {
    info: "border-indigo-100 bg-indigo-50/60 text-indigo-900",
    warn: "border-amber-200 bg-amber-50 text-amber-900",
    error: "border-red-200 bg-red-50 text-red-900",
    success: "border-emerald-200 bg-emerald-50 text-emerald-900",
  }[tone];
  return (
    <div className={`rounded-lg border p-3 text-sm ${styles}`} role={tone === "error" ? "alert" : undefined} data-testid={testId}>
      {title && <p className="font-semibold">{title}</p>}
      {children && <div className={title ? "mt-1" : ""}>{children}</div>}
    </div>
  );
}

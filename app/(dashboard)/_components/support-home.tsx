"use client";

import { useId, useMemo, useState, type FormEvent } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { RefundAction, type Refundable } from "@/components/audit/refund-action";
import { DataTable } from "@/components/tables/data-table";
import { Pagination } from "@/components/tables/pagination";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock } from "@/components/ui/states";
import { type AccountsByEmail, type ReviewCase, fetchAccountsByEmail, fetchReviewQueue } from "@/lib/dashboard/audit-api";
import { formatCredits, formatDateTime } from "@/lib/dashboard/format";
import { executionHref } from "@/lib/dashboard/links";
import { useTimeZone } from "@/lib/dashboard/time-zone";

const PAGE_SIZE = 25;
const column = createColumnHelper<ReviewCase>();

const accountHref = (accountId: string) => `/usage?account_id=${encodeURIComponent(accountId)}`;

/** Where a support search goes: an account's usage, or the lookup (which finds any id in whichever account holds it). */
export function supportSearchHref(input: string): string | null {
  const value = input.trim();
  if (!value) return null;
  if (/^acc_/i.test(value)) return accountHref(value);
  return executionHref(value);
}

/** The review-queue case as RefundAction reads a Call. */
const refundable = (c: ReviewCase): Refundable => ({
  execution_id: c.execution_id,
  execution: { settled_credits: c.charged_credits, refunded_credits: c.refunded_credits },
  usage_event: { charge_outcome: "failed_charged_review" },
});

/**
 * Support staff's home: one box for any id (`exe_…`, `led_…`, `srch_…`, a usage event, a session,
 * `acc_…`) or a customer's email, and the queue of failed but charged Calls across accounts, oldest first, each with a
 * one-dialog refund.
 */
export function SupportHome() {
  const { t, locale } = useI18n();
  const router = useRouter();
  const tz = useTimeZone();
  const inputId = useId();
  const [draft, setDraft] = useState("");
  const [page, setPage] = useState(1);
  const [found, setFound] = useState<AccountsByEmail | null>(null);
  const byEmail = useMutation({
    mutationFn: (email: string) => fetchAccountsByEmail(email),
    onSuccess: (result) => {
      // One account: straight to it; several or none: listed under the box.
      if (result.items.length === 1) router.push(accountHref(result.items[0].account_id));
      else setFound(result);
    },
  });
  const queue = useQuery({
    queryKey: ["review-queue", page],
    queryFn: ({ signal }) => fetchReviewQueue((page - 1) * PAGE_SIZE, PAGE_SIZE, signal),
    placeholderData: keepPreviousData,
  });

  function search(event: FormEvent) {
    event.preventDefault();
    setFound(null);
    if (draft.includes("@")) {
      byEmail.mutate(draft.trim());
      return;
    }
    const href = supportSearchHref(draft);
    if (href) router.push(href);
  }

  const columns = useMemo(
    () => [
      column.accessor("created_at", {
        header: () => t("support.colWhen"),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-700">{formatDateTime(info.getValue(), tz.timeZone)}</span>,
        meta: { primary: true },
      }),
      column.accessor("account_name", {
        header: () => t("support.colAccount"),
        cell: (info) => (
          <span className="flex min-w-0 flex-col">
            <Link prefetch={false} href={`/usage?account_id=${encodeURIComponent(info.row.original.account_id)}`} className="font-medium text-indigo-700 hover:underline">
              {info.getValue()}
            </Link>
            <code className="max-w-[9rem] truncate font-mono text-[11px] text-zinc-500" title={info.row.original.account_id}>{info.row.original.account_id}</code>
          </span>
        ),
      }),
      column.accessor("tool_name", {
        header: () => t("support.colTool"),
        cell: (info) => (
          <span className="flex min-w-0 flex-col">
            <span className="text-zinc-900">{info.getValue() ?? info.row.original.tool_id ?? "—"}</span>
            {info.row.original.tool_id && <code className="max-w-[11rem] truncate font-mono text-[11px] text-zinc-500" title={info.row.original.tool_id}>{info.row.original.tool_id}</code>}
          </span>
        ),
      }),
      column.accessor("reason_code", {
        header: () => t("support.colReason"),
        cell: (info) => <code className="font-mono text-xs text-zinc-700">{info.getValue() ?? "—"}</code>,
      }),
      column.accessor("open_credits", {
        header: () => t("support.colOpen"),
        cell: (info) => <span className="font-semibold tabular-nums text-red-700" data-testid="review-open-credits">{formatCredits(info.getValue(), locale)}</span>,
        meta: { align: "right" },
      }),
      column.display({
        id: "actions",
        header: () => <span className="sr-only">{t("support.colActions")}</span>,
        cell: (info) => (
          <span className="flex items-center justify-end gap-2">
            <Link prefetch={false} href={executionHref(info.row.original.execution_id, info.row.original.account_id)} className="text-sm font-medium text-indigo-700 hover:underline" data-testid="review-open-case">
              {t("support.openCase")}
            </Link>
            <RefundAction call={refundable(info.row.original)} accountId={info.row.original.account_id} onRefunded={() => undefined} />
          </span>
        ),
      }),
    ],
    [t, locale, tz.timeZone],
  );

  return (
    <div className="space-y-6">
      <Card className="p-4 sm:p-5">
        <form onSubmit={search} className="flex flex-col gap-2 sm:flex-row sm:items-end">
          <div className="min-w-0 flex-1">
            <FieldLabel htmlFor={inputId} hint={t("support.searchHint")}>
              {t("support.search")}
            </FieldLabel>
            <TextInput id={inputId} value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="exe_…, led_…, acc_…, name@example.com" autoComplete="off" spellCheck={false} data-testid="support-search" />
          </div>
          <Button type="submit" variant="primary" disabled={byEmail.isPending}>
            {t("support.searchAction")}
          </Button>
        </form>
        {byEmail.isError && <p className="mt-2 text-sm text-red-700">{byEmail.error.message}</p>}
        {found && (
          <div className="mt-3 text-sm" data-testid="support-email-result">
            {found.items.length === 0 ? (
              <p className="text-zinc-600">{t("support.noSuchEmail", { email: found.email })}</p>
            ) : (
              <>
                <p className="text-zinc-600">{t("support.emailAccounts", { email: found.email })}</p>
                <ul className="mt-1 space-y-1">
                  {found.items.map((a) => (
                    <li key={a.account_id} className="[overflow-wrap:anywhere]">
                      <Link prefetch={false} href={accountHref(a.account_id)} className="font-medium text-indigo-700 hover:underline">
                        {a.name}
                      </Link>{" "}
                      <span className="text-zinc-500">· {a.role} · </span>
                      <code className="font-mono text-xs text-zinc-500">{a.account_id}</code>
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
      </Card>

      <section aria-labelledby="review-queue-heading" className="space-y-3">
        <h2 id="review-queue-heading" className="text-sm font-semibold text-zinc-900">
          {t("support.queue")} {queue.data && <span className="font-normal text-zinc-500">({queue.data.total})</span>}{" "}
          <span className="font-normal text-zinc-500">· {tz.timeZone}</span>
        </h2>
        {queue.isPending ? (
          <LoadingBlock label={t("support.queue")} />
        ) : queue.isError ? (
          <ErrorState title={t("support.queueError")} message={queue.error.message} retryLabel={t("common.retry")} onRetry={() => void queue.refetch()} />
        ) : queue.data.items.length === 0 ? (
          <EmptyState title={t("support.queueEmpty")} body={t("support.queueEmptyBody")} testId="review-queue-empty" />
        ) : (
          <DataTable
            data={queue.data.items}
            columns={columns}
            caption={t("support.queue")}
            getRowId={(c) => c.usage_event_id}
            rowTestId="review-case"
            busy={queue.isFetching}
            footer={queue.data.total > PAGE_SIZE ? <Pagination page={page} pageSize={PAGE_SIZE} total={queue.data.total} onPage={setPage} /> : undefined}
          />
        )}
      </section>
    </div>
  );
}

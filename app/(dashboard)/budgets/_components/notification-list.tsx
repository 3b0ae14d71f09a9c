"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock } from "@/components/ui/states";
import { fetchNotifications, markNotificationsRead, notificationsQueryKey, type NotificationItem } from "@/lib/dashboard/alerts";
import { failureReason, formatMoney } from "@/lib/dashboard/billing";
import { formatCredits, formatCreditsUnit, formatDateTime, formatZonedDateTime } from "@/lib/dashboard/format";
import type { Locale, Translate } from "@/lib/dashboard/i18n";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { AUTO_TOPUP_MAX_FAILURES } from "@/lib/vocab/payments";

const kindTone: Record<NotificationItem["kind"], Tone> = {
  low_balance: "red",
  budget_threshold: "amber",
  budget_refusing: "red",
  credits_expiring: "amber",
  payment_disputed: "amber",
  payment_dispute_lost: "red",
  payment_unmatched: "amber",
  auto_topup_failed: "red",
  auto_topup_limited: "amber",
  webhook_test: "sky",
  connection_needs_reauth: "amber",
};

const isId = (key: string) => key === "id" || key.endsWith("_id");
const scalar = (v: unknown): v is string | number | boolean => v !== null && v !== undefined && typeof v !== "object";

/** What happened, in words for the kinds whose payload is known; else its fields as `name: value`. */
function describe(n: NotificationItem, t: Translate, locale: Locale, timeZone: string): string {
  const p = n.payload;
  const credits = (v: unknown) => formatCredits(Number(v), locale);
  if (n.kind === "low_balance" && p.balance_credits !== undefined && p.threshold_credits !== undefined) {
    return t("notifications.text.low_balance", { balance: credits(p.balance_credits), threshold: credits(p.threshold_credits), n: Number(p.balance_credits) });
  }
  if (n.kind === "budget_threshold" && p.percent !== undefined && p.limit_credits !== undefined && p.spent_credits !== undefined) {
    return t("notifications.text.budget_threshold", { percent: String(p.percent), spent: credits(p.spent_credits), limit: credits(p.limit_credits), n: Number(p.limit_credits) });
  }
  if (n.kind === "budget_refusing" && p.limit_credits !== undefined && p.needed_credits !== undefined) {
    const unit = (v: unknown) => formatCreditsUnit(Number(v), locale, t);
    return t("notifications.text.budget_refusing", { limit: unit(p.limit_credits), needed: unit(p.needed_credits) });
  }
  if (n.kind === "credits_expiring" && p.remaining_credits !== undefined && p.amount_credits !== undefined && typeof p.expires_at === "string") {
    return t("notifications.text.credits_expiring", { remaining: credits(p.remaining_credits), n: Number(p.remaining_credits), amount: credits(p.amount_credits), time: formatZonedDateTime(p.expires_at, timeZone, locale) });
  }
  const money = typeof p.amount_minor === "number" && typeof p.currency === "string" ? formatMoney(p.amount_minor, p.currency, locale) : null;
  const unit = (v: unknown) => formatCreditsUnit(Number(v), locale, t);
  if (n.kind === "payment_disputed" && money) return t("notifications.text.payment_disputed", { amount: money, reason: String(p.reason ?? "").replaceAll("_", " ") });
  if (n.kind === "payment_dispute_lost" && money && p.credits_reversed !== undefined) {
    const debt = Number(p.debt_credits ?? 0);
    return debt > 0
      ? t("notifications.text.payment_dispute_lost_debt", { amount: money, credits: unit(p.credits_reversed), debt: unit(debt) })
      : t("notifications.text.payment_dispute_lost", { amount: money, credits: unit(p.credits_reversed) });
  }
  if (n.kind === "auto_topup_failed" && money && p.credits !== undefined) {
    const failures = Number(p.consecutive_failures ?? 1);
    const reason = failureReason(typeof p.code === "string" ? p.code : null, typeof p.message === "string" ? p.message : null, t);
    const then = p.paused === true ? t("notifications.text.auto_topup_paused", { n: failures }) : t("notifications.text.auto_topup_failures", { n: failures, max: AUTO_TOPUP_MAX_FAILURES });
    return `${t("notifications.text.auto_topup_failed", { amount: money, credits: unit(p.credits), reason })} ${then}`;
  }
  if (n.kind === "auto_topup_limited" && p.limit_credits !== undefined && p.bought_credits !== undefined) {
    return t("notifications.text.auto_topup_limited", { bought: unit(p.bought_credits), limit: unit(p.limit_credits) });
  }
  if (n.kind === "webhook_test") return t("notifications.text.webhook_test");
  if (n.kind === "connection_needs_reauth" && typeof p.provider_id === "string") return t("notifications.text.connection_needs_reauth", { provider: p.provider_id });
  return Object.entries(p)
    .filter(([k, v]) => !isId(k) && scalar(v))
    .map(([k, v]) => `${k.replaceAll("_", " ")}: ${String(v)}`)
    .join(" · ");
}

/** The ids a notification names (execution, ledger row, budget, endpoint), to look them up. */
function ids(payload: Record<string, unknown>): string[] {
  return Object.entries(payload)
    .filter(([k, v]) => isId(k) && typeof v === "string")
    .map(([, v]) => v as string);
}

/** The account's notifications, newest first; unread ones are marked, and can be marked read. */
export function NotificationList() {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: [...notificationsQueryKey, "list"], queryFn: ({ signal }) => fetchNotifications(50, signal), refetchInterval: 30_000 });
  const markAll = useMutation({
    mutationFn: () => markNotificationsRead(),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: notificationsQueryKey }),
  });

  return (
    <section id="notifications" aria-labelledby="notifications-heading" className="scroll-mt-20 space-y-3">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <h2 id="notifications-heading" className="text-base font-semibold text-zinc-900">
          {t("notifications.title")}
          {query.data && query.data.unread_count > 0 && (
            <Badge tone="red" className="ml-2 align-middle">
              {query.data.unread_count}
            </Badge>
          )}
        </h2>
        {query.data && query.data.unread_count > 0 && (
          <Button size="sm" onClick={() => markAll.mutate()} disabled={markAll.isPending}>
            {t("notifications.markAllRead")}
          </Button>
        )}
      </div>
      {query.isPending ? (
        <LoadingBlock label={t("notifications.loading")} rows={3} />
      ) : query.isError ? (
        <ErrorState title={t("notifications.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : query.data.items.length === 0 ? (
        <EmptyState title={t("notifications.emptyTitle")} body={t("notifications.emptyBody")} testId="notifications-empty" />
      ) : (
        <Card>
          <ul className="divide-y divide-zinc-100">
            {query.data.items.map((n) => (
              <li key={n.id} className="flex gap-3 px-4 py-3 sm:px-5" data-testid="notification-row">
                <span aria-hidden="true" className={`mt-1.5 size-2 shrink-0 rounded-full ${n.read_at ? "bg-transparent" : "bg-indigo-500"}`} />
                <div className="min-w-0 flex-1 space-y-1">
                  <div className="flex flex-wrap items-center gap-1.5">
                    <Badge tone={kindTone[n.kind]}>{t(`notifications.kind.${n.kind}`)}</Badge>
                    {!n.read_at && <span className="text-xs font-medium text-indigo-700">{t("notifications.unread")}</span>}
                    <span className="text-xs tabular-nums text-zinc-500">{formatDateTime(n.created_at, tz.timeZone)}</span>
                  </div>
                  <p className="break-words text-sm text-zinc-700">{describe(n, t, locale, tz.timeZone)}</p>
                  {ids(n.payload).length > 0 && <p className="break-all font-mono text-[11px] text-zinc-500">{ids(n.payload).join(" · ")}</p>}
                </div>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </section>
  );
}

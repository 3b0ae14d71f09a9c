"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { JsonViewer } from "@/components/ui/json-viewer";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { deliveriesQueryKey, fetchDeliveries, resendDelivery, webhooksQueryKey, type WebhookDelivery } from "@/lib/dashboard/alerts";
import { formatDateTime, formatDuration } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";

const statusTone: Record<WebhookDelivery["status"], Tone> = { pending: "amber", delivered: "green", failed: "red" };

/** 2xx green, other answers red, no answer neutral. */
export function statusCodeTone(code: number | null): Tone {
  if (code === null) return "neutral";
  return code >= 200 && code < 300 ? "green" : "red";
}

function DeliveryItem({ delivery, canEdit }: { delivery: WebhookDelivery; canEdit: boolean }) {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const queryClient = useQueryClient();
  const resend = useMutation({
    mutationFn: () => resendDelivery(delivery.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: deliveriesQueryKey(delivery.endpoint_id) });
      void queryClient.invalidateQueries({ queryKey: webhooksQueryKey });
    },
  });
  return (
    <li className="rounded-lg border border-zinc-200 p-3" data-testid="delivery-row">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 space-y-1">
          <div className="flex flex-wrap items-center gap-1.5">
            <Badge tone={statusTone[delivery.status]}>{t(`webhooks.status.${delivery.status}`)}</Badge>
            <code className="font-mono text-xs text-zinc-700">{delivery.event_type}</code>
            <span data-testid="delivery-status-code">
              <Badge tone={statusCodeTone(delivery.last_status_code)}>{delivery.attempts === 0 ? "—" : (delivery.last_status_code ?? t("webhooks.noResponse"))}</Badge>
            </span>
          </div>
          <p className="text-xs text-zinc-500">
            <span className="tabular-nums">{formatDateTime(delivery.created_at, tz.timeZone)}</span> · {t("webhooks.attemptCount", { count: delivery.attempts })}
            {delivery.next_attempt_at && <> · {t("webhooks.nextAttempt", { time: formatDateTime(delivery.next_attempt_at, tz.timeZone) })}</>}
          </p>
          <p className="break-all font-mono text-[11px] text-zinc-500" data-testid="delivery-id">
            {delivery.id}
          </p>
        </div>
        {canEdit && (
          <Button size="sm" onClick={() => resend.mutate()} disabled={resend.isPending}>
            {resend.isPending ? t("webhooks.resending") : t("webhooks.resend")}
          </Button>
        )}
      </div>
      {resend.isError && (
        <div className="mt-2">
          <Notice tone="error">{resend.error.message}</Notice>
        </div>
      )}
      {delivery.attempt_log.length > 0 && (
        <details className="mt-2 text-xs">
          <summary className="cursor-pointer text-zinc-600">{t("webhooks.attemptsTitle")}</summary>
          <ol className="mt-2 space-y-1" data-testid="attempt-log">
            {delivery.attempt_log.map((a, i) => (
              <li key={`${a.attempted_at}-${i}`} className="flex flex-wrap items-center gap-x-2 gap-y-1 text-zinc-600">
                <span className="tabular-nums">{formatDateTime(a.attempted_at, tz.timeZone)}</span>
                <Badge tone={statusCodeTone(a.status_code)}>{a.status_code ?? t("webhooks.noResponse")}</Badge>
                {a.duration_ms !== null && <span className="tabular-nums text-zinc-500">{formatDuration(a.duration_ms, locale)}</span>}
                {a.error && <span className="min-w-0 break-words text-red-700">{a.error}</span>}
              </li>
            ))}
          </ol>
          <div className="mt-2">
            <JsonViewer value={delivery.payload} label={t("webhooks.payload")} maxHeight="max-h-60" />
          </div>
        </details>
      )}
    </li>
  );
}

/** One endpoint's deliveries with their attempts; refreshed every few seconds while one is pending. */
export function DeliveryLog({ endpointId, canEdit }: { endpointId: string; canEdit: boolean }) {
  const { t } = useI18n();
  const query = useQuery({
    queryKey: deliveriesQueryKey(endpointId),
    queryFn: ({ signal }) => fetchDeliveries(endpointId, signal),
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === "pending") ? 2_000 : false),
  });
  if (query.isPending) return <LoadingBlock label={t("webhooks.logLoading")} rows={2} />;
  if (query.isError) return <ErrorState title={t("webhooks.logError")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />;
  if (query.data.length === 0) return <p className="text-sm text-zinc-500">{t("webhooks.logEmpty")}</p>;
  return (
    <ul className="space-y-2" aria-label={t("webhooks.showLog")} data-testid="delivery-log">
      {query.data.map((d) => (
        <DeliveryItem key={d.id} delivery={d} canEdit={canEdit} />
      ))}
    </ul>
  );
}

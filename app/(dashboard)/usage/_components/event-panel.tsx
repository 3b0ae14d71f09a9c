"use client";

import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ChargeOutcomeBadge, ReasonCode, SuccessBadge } from "@/components/audit/charge-outcome-badge";
import { DetailRow, DetailRows, IdValue } from "@/components/audit/id-rows";
import { ArrowRightIcon } from "@/components/ui/action-icons";
import { Badge } from "@/components/ui/badge";
import { ButtonLink } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { JsonViewer } from "@/components/ui/json-viewer";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { fetchUsageEvent, type UsageEventItem } from "@/lib/dashboard/audit-api";
import { formatCredits, formatDateTime, formatDuration } from "@/lib/dashboard/format";
import { executionHref, ledgerEntryHref, runHref, useAccountInView } from "@/lib/dashboard/links";

function EventDetails({ event, timeZone }: { event: UsageEventItem; timeZone: string }) {
  const account = useAccountInView();
  const { t, locale } = useI18n();
  const json: [string, unknown][] = [
    ["billing_rule_snapshot", event.billing_rule_snapshot],
    ["pre_settlement_bill", event.pre_settlement_bill],
    ["settlement_result", event.settlement_result],
    ["execution_outcome", event.execution_outcome],
    ["request_payload", event.request_payload],
    ["response_payload_summary", event.response_payload_summary],
  ];
  return (
    <div className="space-y-4" data-testid="event-details">
      <div className="flex flex-wrap items-center gap-1.5">
        <ChargeOutcomeBadge outcome={event.charge_outcome} />
        <SuccessBadge success={event.success} />
        <ReasonCode code={event.reason_code} />
        {event.cache_hit && <Badge tone="sky">{t("console.cacheHit")}</Badge>}
        {event.anomalies.map((a) => (
          <Badge key={a} tone="red">
            {t(`anomaly.${a}`)}
          </Badge>
        ))}
      </div>
      {event.error_message && <Notice tone="error">{event.error_message}</Notice>}

      <div className="flex flex-wrap gap-2">
        {event.execution_id && (
          <ButtonLink size="sm" variant="primary" href={executionHref(event.execution_id, account)} data-testid="event-to-execution">
            {t("console.auditTrail")}
            <ArrowRightIcon width={16} height={16} />
          </ButtonLink>
        )}
        {event.credits_ledger_entry_id && (
          <ButtonLink size="sm" href={ledgerEntryHref(event.credits_ledger_entry_id, account)} data-testid="to-ledger">
            {t("usage.toLedger")}
            <ArrowRightIcon width={16} height={16} />
          </ButtonLink>
        )}
      </div>

      <DetailRows>
        <DetailRow label={t("usage.colTime", { tz: timeZone })}>{formatDateTime(event.created_at, timeZone)}</DetailRow>
        <DetailRow label="event_type">{event.event_type}</DetailRow>
        <DetailRow label="channel">{event.channel}</DetailRow>
        <DetailRow label="id">
          <IdValue value={event.id} />
        </DetailRow>
        <DetailRow label="execution_id">
          <IdValue value={event.execution_id} href={event.execution_id ? executionHref(event.execution_id, account) : undefined} />
        </DetailRow>
        <DetailRow label="credits_ledger_entry_id">
          <IdValue value={event.credits_ledger_entry_id} href={event.credits_ledger_entry_id ? ledgerEntryHref(event.credits_ledger_entry_id, account) : undefined} />
        </DetailRow>
        <DetailRow label="search_id">
          <IdValue value={event.search_id} href={event.search_id ? executionHref(event.search_id, account) : undefined} />
        </DetailRow>
        <DetailRow label="session_id">
          <IdValue value={event.session_id} href={event.session_id ? executionHref(event.session_id, account) : undefined} />
        </DetailRow>
        <DetailRow label="tool_id">
          {event.tool_name && <span className="block text-sm text-zinc-900">{event.tool_name}</span>}
          <IdValue value={event.tool_id} />
        </DetailRow>
        <DetailRow label="api_key_id">
          {event.api_key_name && (
            <span className="block text-sm text-zinc-900" data-testid="event-key-name">
              {event.api_key_name}
            </span>
          )}
          <IdValue value={event.api_key_id} />
        </DetailRow>
        {event.oauth_client_id && (
          <DetailRow label="oauth_client_id">
            <IdValue value={event.oauth_client_id} />
          </DetailRow>
        )}
        {event.run_id && (
          <DetailRow label="run_id">
            <IdValue value={event.run_id} href={runHref(event.run_id, account)} testId="event-run-link" />
          </DetailRow>
        )}
        <DetailRow label="source">
          <span className="font-mono text-xs">
            {event.source_system} · {event.source_ref_type ?? "—"} · {event.source_ref_id ?? "—"}
          </span>
        </DetailRow>
      </DetailRows>

      <DetailRows>
        <DetailRow label="pre_settlement_amount_credits">{formatCredits(event.pre_settlement_amount_credits, locale)}</DetailRow>
        <DetailRow label="requested_amount_credits">{formatCredits(event.requested_amount_credits, locale)}</DetailRow>
        <DetailRow label="actual_amount_credits">
          <span data-testid="event-actual">{formatCredits(event.actual_amount_credits, locale)}</span>
        </DetailRow>
        <DetailRow label="settled_amount_credits">{formatCredits(event.settled_amount_credits, locale)}</DetailRow>
        <DetailRow label="billing_summary">{event.billing_summary ?? "—"}</DetailRow>
        <DetailRow label="billing_snapshot_status">{event.billing_snapshot_status}</DetailRow>
        <DetailRow label={t("usage.colDuration")}>{formatDuration(event.duration_ms, locale)}</DetailRow>
        <DetailRow label="billable_success">{String(event.billable_success)}</DetailRow>
        {event.model && <DetailRow label="model">{event.model}</DetailRow>}
      </DetailRows>

      {json
        .filter(([, value]) => value !== null && value !== undefined)
        .map(([label, value]) => (
          <JsonViewer key={label} value={value} label={label} maxHeight="max-h-72" />
        ))}
    </div>
  );
}

/** One usage event with its full audit detail (`GET /auth/usage/history/v2/{event_id}`), in a side panel. */
export function EventPanel({ eventId, accountId, timeZone, onClose }: { eventId: string | null; accountId: string | undefined; timeZone: string; onClose: () => void }) {
  const { t } = useI18n();
  const query = useQuery({
    queryKey: ["usage", "event", eventId, accountId],
    queryFn: ({ signal }) => fetchUsageEvent(eventId ?? "", accountId, signal),
    enabled: Boolean(eventId),
  });
  return (
    <Dialog open={Boolean(eventId)} onClose={onClose} variant="panel" title={t("usage.eventTitle")} description={eventId ?? undefined} closeLabel={t("common.close")} testId="event-panel">
      {query.isPending ? (
        <LoadingBlock label={t("common.loading")} rows={8} />
      ) : query.isError ? (
        <Notice tone="error" title={t("usage.eventError")}>
          {query.error.message}
        </Notice>
      ) : (
        <EventDetails event={query.data} timeZone={timeZone} />
      )}
    </Dialog>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DetailRow, DetailRows, IdValue } from "@/components/audit/id-rows";
import { ToolLabel } from "@/components/audit/tool-label";
import { ArrowRightIcon } from "@/components/ui/action-icons";
import { ButtonLink } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { JsonViewer } from "@/components/ui/json-viewer";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { fetchLedgerEntry, fetchUsage, type LedgerItem } from "@/lib/dashboard/audit-api";
import { formatCredits, formatDateTime } from "@/lib/dashboard/format";
import { executionHref, usageEventHref } from "@/lib/dashboard/links";
import { SignedAmount } from "./ledger-table";

function EntryDetails({ entry, accountId, timeZone }: { entry: LedgerItem; accountId: string | undefined; timeZone: string }) {
  const { t, locale } = useI18n();
  // A Call's ledger row names its execution; its usage event is the one with that execution_id.
  const eventQuery = { execution_id: entry.execution_id ?? undefined, kind: "call", page_size: "1", account_id: accountId };
  const event = useQuery({
    queryKey: ["usage", "list", eventQuery],
    queryFn: ({ signal }) => fetchUsage(eventQuery, signal),
    enabled: !entry.usage_event_id && Boolean(entry.execution_id),
  });
  const eventId = entry.usage_event_id ?? event.data?.items[0]?.id ?? null;
  return (
    <div className="space-y-4" data-testid="entry-details">
      <div className="flex flex-wrap items-baseline gap-3">
        <SignedAmount value={entry.amount_credits} testId="entry-amount" />
        <span className="text-sm text-zinc-600">{t(`entry.${entry.entry_type}`)}</span>
      </div>
      <p className="text-sm text-zinc-700">{entry.description}</p>
      <div className="flex flex-wrap gap-2">
        {entry.execution_id && (
          <ButtonLink size="sm" variant="primary" href={executionHref(entry.execution_id, accountId)}>
            {t("console.auditTrail")}
            <ArrowRightIcon width={16} height={16} />
          </ButtonLink>
        )}
        {eventId && (
          <ButtonLink size="sm" href={usageEventHref(eventId, accountId)} data-testid="entry-to-event">
            {t("ledger.usageEvent")}
            <ArrowRightIcon width={16} height={16} />
          </ButtonLink>
        )}
      </div>
      <DetailRows>
        <DetailRow label={t("usage.colTime", { tz: timeZone })}>{formatDateTime(entry.created_at, timeZone)}</DetailRow>
        <DetailRow label="id">
          <IdValue value={entry.id} testId="entry-id" />
        </DetailRow>
        <DetailRow label="entry_type">
          <code className="font-mono text-xs">{entry.entry_type}</code>
        </DetailRow>
        {entry.tool_id && (
          <DetailRow label={t("ledger.tool")}>
            <ToolLabel name={entry.tool_name} id={entry.tool_id} />
          </DetailRow>
        )}
        <DetailRow label={t("ledger.balanceBefore")}>{formatCredits(entry.balance_before.total_available_credits, locale)}</DetailRow>
        <DetailRow label={t("ledger.balanceAfter")}>{formatCredits(entry.balance_after.total_available_credits, locale)}</DetailRow>
        <DetailRow label="execution_id">
          <IdValue value={entry.execution_id} href={entry.execution_id ? executionHref(entry.execution_id, accountId) : undefined} />
        </DetailRow>
        <DetailRow label={entry.usage_event_id ? "usage_event_id" : t("ledger.usageEventOfExecution")}>
          <IdValue value={eventId} href={eventId ? usageEventHref(eventId, accountId) : undefined} />
        </DetailRow>
        <DetailRow label="source">
          <span className="font-mono text-xs">
            {entry.source_system} · {entry.source_ref_type ?? "—"} · {entry.source_ref_id ?? "—"}
          </span>
        </DetailRow>
      </DetailRows>
      {(
        [
          ["pre_settlement_bill", entry.pre_settlement_bill],
          ["settlement_result", entry.settlement_result],
          ["ledger_metadata", entry.ledger_metadata],
        ] as const
      )
        .filter(([, value]) => value !== null && value !== undefined)
        .map(([label, value]) => (
          <JsonViewer key={label} value={value} label={label} maxHeight="max-h-64" />
        ))}
    </div>
  );
}

/** One ledger row (`GET /auth/credits/ledger/{entry_id}`) with links to its execution and usage event. */
export function EntryPanel({ entryId, accountId, timeZone, onClose }: { entryId: string | null; accountId: string | undefined; timeZone: string; onClose: () => void }) {
  const { t } = useI18n();
  const query = useQuery({
    queryKey: ["ledger", "entry", entryId, accountId],
    queryFn: ({ signal }) => fetchLedgerEntry(entryId ?? "", accountId, signal),
    enabled: Boolean(entryId),
  });
  return (
    <Dialog open={Boolean(entryId)} onClose={onClose} variant="panel" title={t("ledger.entryTitle")} description={entryId ?? undefined} closeLabel={t("common.close")} testId="entry-panel">
      {query.isPending ? (
        <LoadingBlock label={t("common.loading")} rows={6} />
      ) : query.isError ? (
        <Notice tone="error" title={t("ledger.entryError")}>
          {query.error.message}
        </Notice>
      ) : (
        <EntryDetails entry={query.data} accountId={accountId} timeZone={timeZone} />
      )}
    </Dialog>
  );
}

"use client";

import { useState } from "react";
import Link from "next/link";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ChargeOutcomeBadge, ReasonCode } from "@/components/audit/charge-outcome-badge";
import { DetailRow, DetailRows, IdValue } from "@/components/audit/id-rows";
import { Badge, type Tone } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Notice } from "@/components/ui/states";
import type { CallTrace, Lookup } from "@/lib/dashboard/audit-api";
import { formatCredits, formatDateTime, formatDuration, formatSignedCredits } from "@/lib/dashboard/format";
import type { MessageKey } from "@/lib/dashboard/i18n";
import { executionHref, ledgerEntryHref, usageEventHref } from "@/lib/dashboard/links";
import type { Refund } from "@/lib/dashboard/refunds";
import { RefundAction, RefundDone } from "@/components/audit/refund-action";

type Status = Lookup["reconciliation"]["status"];
type Step = Lookup["timeline"][number]["step"];

const statusTones: Record<Status, Tone> = { reconciled: "green", not_charged: "neutral", in_flight: "amber", review: "amber", refunded: "green", broken: "red" };
const stepColors: Record<Step, string> = {
  search: "bg-sky-500",
  inspect: "bg-sky-300",
  call: "bg-indigo-600",
  usage_event: "bg-violet-500",
  ledger_entry: "bg-amber-500",
  refund: "bg-lime-500",
  balance_change: "bg-emerald-500",
};

/** Where a step's id opens; `account`: the customer's account support is reading, which every link keeps. */
function stepHref(step: Step, ref: string, account: string | undefined): string | undefined {
  switch (step) {
    case "search":
    case "call":
      return executionHref(ref, account);
    case "inspect":
    case "usage_event":
      return usageEventHref(ref, account);
    case "ledger_entry":
    case "refund":
    case "balance_change":
      return ledgerEntryHref(ref, account);
  }
}

export function VerdictBadge({ status }: { status: Status }) {
  const { t } = useI18n();
  return (
    <Badge tone={statusTones[status]} className="px-2 py-1 text-sm">
      {t(`verdict.${status}`)}
    </Badge>
  );
}

/** A plain-text block of every id in scope, for a support ticket. */
function ticketText(lookup: Lookup): string {
  const lines = [`lookup: ${lookup.id} (${lookup.resolved_as})`, `account_id: ${lookup.account_id} (${lookup.account_name})`, `verdict: ${lookup.reconciliation.status}`];
  if (lookup.session_id) lines.push(`session_id: ${lookup.session_id}`);
  for (const s of lookup.searches) lines.push(`search_id: ${s.search_id}`);
  for (const c of lookup.calls) {
    lines.push(`execution_id: ${c.execution_id}${c.tool_id ? ` tool_id: ${c.tool_id}` : ""}`);
    if (c.usage_event) lines.push(`  usage_event_id: ${c.usage_event.id} charge_outcome: ${c.usage_event.charge_outcome} reason_code: ${c.usage_event.reason_code ?? "-"}`);
    for (const l of c.ledger_entries) lines.push(`  ledger_entry_id: ${l.id} amount_credits: ${l.amount_credits}`);
  }
  for (const p of lookup.reconciliation.problems) lines.push(`problem: ${p.link} at ${p.ref_id}`);
  return lines.join("\n");
}

function CallCard({ call, timeZone, accountId, canRefund, linkAccount }: { call: CallTrace; timeZone: string; accountId: string; canRefund: boolean; linkAccount: string | undefined }) {
  const { t, locale } = useI18n();
  const [refunded, setRefunded] = useState<Refund | null>(null);
  return (
    <Card className="p-4 sm:p-5" data-testid="call-trace">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="text-sm font-semibold text-zinc-900">{t("executions.call", { tool: call.usage_event?.tool_name ?? call.tool_id ?? "?" })}</p>
          {call.usage_event?.tool_name && call.tool_id && <code className="block font-mono text-[11px] text-zinc-500">{call.tool_id}</code>}
          <p className="mt-0.5 text-xs text-zinc-500">{formatDateTime(call.created_at, timeZone)}</p>
        </div>
        <div className="flex items-center gap-2">
          {canRefund && <RefundAction call={call} accountId={accountId} onRefunded={setRefunded} />}
          <VerdictBadge status={call.reconciliation.status} />
        </div>
      </div>
      {refunded && (
        <div className="mt-3">
          <RefundDone refund={refunded} />
        </div>
      )}
      {call.reconciliation.missing_links.length > 0 && (
        <div className="mt-3">
          <Notice tone="error">{t("executions.missing", { links: call.reconciliation.missing_links.join(", ") })}</Notice>
        </div>
      )}
      <div className="mt-3 grid gap-3 lg:grid-cols-2">
        <DetailRows>
          <DetailRow label="execution_id">
            <IdValue value={call.execution_id} />
          </DetailRow>
          <DetailRow label="search_id">
            <IdValue value={call.search_id} href={call.search_id ? executionHref(call.search_id, linkAccount) : undefined} />
          </DetailRow>
          <DetailRow label="session_id">
            <IdValue value={call.session_id} href={call.session_id ? executionHref(call.session_id, linkAccount) : undefined} />
          </DetailRow>
          <DetailRow label={t("executions.status")}>{call.execution?.status ?? t("executions.noExecutionRow")}</DetailRow>
          <DetailRow label={t("executions.reserved")}>{call.execution ? formatCredits(call.execution.reserved_credits, locale) : "—"}</DetailRow>
          <DetailRow label={t("executions.settled")}>{call.execution?.settled_credits == null ? "—" : formatCredits(call.execution.settled_credits, locale)}</DetailRow>
          {(call.execution?.refunded_credits ?? 0) > 0 && (
            <DetailRow label={t("executions.refunded")}>
              <span data-testid="refunded-credits">{formatCredits(call.execution?.refunded_credits, locale)}</span>
            </DetailRow>
          )}
          <DetailRow label={t("usage.colDuration")}>{formatDuration(call.execution?.duration_ms, locale)}</DetailRow>
        </DetailRows>
        <DetailRows>
          <DetailRow label={t("ledger.usageEvent")}>
            <IdValue value={call.usage_event?.id} href={call.usage_event ? usageEventHref(call.usage_event.id, linkAccount) : undefined} />
          </DetailRow>
          <DetailRow label={t("usage.colOutcome")}>
            <span className="flex flex-wrap gap-1">
              <ChargeOutcomeBadge outcome={call.usage_event?.charge_outcome ?? call.execution?.charge_outcome} />
              <ReasonCode code={call.usage_event?.reason_code ?? call.execution?.reason_code} />
            </span>
          </DetailRow>
          <DetailRow label="actual_amount_credits">{call.usage_event ? formatCredits(call.usage_event.actual_amount_credits, locale) : "—"}</DetailRow>
          {call.ledger_entries.map((l) => (
            <DetailRow key={l.id} label={l.entry_type.startsWith("refund_") ? t("step.refund") : t("executions.ledgerRow")}>
              <span className="flex min-w-0 flex-wrap items-center gap-2">
                <IdValue value={l.id} href={ledgerEntryHref(l.id, linkAccount)} />
                <span className={`tabular-nums font-semibold ${l.amount_credits < 0 ? "text-red-700" : "text-emerald-700"}`}>{formatSignedCredits(l.amount_credits, locale)}</span>
              </span>
            </DetailRow>
          ))}
          {call.balance_changes.map((b) => (
            <DetailRow key={`bal-${b.ledger_entry_id}`} label={t("executions.balanceChange")}>
              <span className="tabular-nums" data-testid="balance-change">
                {formatCredits(b.balance_before, locale)} {formatSignedCredits(b.amount_credits, locale)} = {formatCredits(b.balance_after, locale)}{" "}
                {b.continuous ? <span className="text-emerald-700">✓ {t("executions.continuous")}</span> : <span className="text-red-700">✗ {t("executions.discontinuous")}</span>}
              </span>
            </DetailRow>
          ))}
        </DetailRows>
      </div>
    </Card>
  );
}

/** The whole story around one id: verdict, timeline, and each Call's links. */
export function LookupResult({ lookup, timeZone, isSupport }: { lookup: Lookup; timeZone: string; isSupport: boolean }) {
  const { t } = useI18n();
  const status = lookup.reconciliation.status;
  // Support reads a customer's account: every link keeps it (the API refuses account_id to anyone else).
  const linkAccount = isSupport ? lookup.account_id : undefined;
  return (
    <div className="space-y-6" data-testid="lookup-result">
      <Card className="p-4 sm:p-5">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0 space-y-1">
            <div className="flex flex-wrap items-center gap-2">
              <span data-testid="verdict">
                <VerdictBadge status={status} />
              </span>
              <span className="text-sm text-zinc-600">{t(`verdict.${status}Body` as MessageKey)}</span>
            </div>
            <p className="text-xs text-zinc-500">
              {t("executions.resolvedAs", { kind: lookup.resolved_as })} · <code className="font-mono">{lookup.id}</code>
            </p>
            <p className="text-sm text-zinc-700 [overflow-wrap:anywhere]" data-testid="lookup-account">
              {t("executions.account")}: <span className="font-semibold text-zinc-900">{lookup.account_name}</span> ·{" "}
              {lookup.account_owners.length > 0 ? t("executions.accountOwners", { owners: lookup.account_owners.join(", ") }) : t("executions.noOwner")} ·{" "}
              <code className="font-mono text-xs">{lookup.account_id}</code>
            </p>
            {lookup.session_id && (
              <p className="text-xs text-zinc-500">
                session_id{" "}
                <Link href={executionHref(lookup.session_id, linkAccount)} className="font-mono text-indigo-700 hover:underline">
                  {lookup.session_id}
                </Link>
              </p>
            )}
          </div>
          <CopyButton value={ticketText(lookup)} label={t("executions.copyTicket")} showLabel className="border border-zinc-300 bg-white px-2.5 py-1.5 shadow-xs" />
        </div>
        {lookup.reconciliation.problems.length > 0 && (
          <div className="mt-3">
            <Notice tone="error" title={t("executions.problems")}>
              <ul className="list-disc space-y-0.5 pl-4">
                {lookup.reconciliation.problems.map((p) => (
                  <li key={`${p.ref_id}-${p.link}`}>
                    <code className="font-mono text-xs">{p.link}</code> — <code className="font-mono text-xs">{p.ref_id}</code>
                  </li>
                ))}
              </ul>
            </Notice>
          </div>
        )}
        {lookup.truncated && (
          <div className="mt-3">
            <Notice tone="warn">{t("executions.truncated")}</Notice>
          </div>
        )}
      </Card>

      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading" className="mb-3 text-sm font-semibold text-zinc-900">
          {t("executions.timeline")} <span className="font-normal text-zinc-500">({timeZone})</span>
        </h2>
        <Card className="p-4 sm:p-5">
          {lookup.timeline.length === 0 ? (
            <p className="text-sm text-zinc-500">{t("executions.noSteps")}</p>
          ) : (
            <ol className="relative space-y-4 border-l border-zinc-200 pl-5" data-testid="timeline">
              {lookup.timeline.map((step, i) => {
                const href = stepHref(step.step, step.ref_id, linkAccount);
                return (
                  <li key={`${step.step}-${step.ref_id}-${i}`} className="relative" data-testid="timeline-step" data-step={step.step}>
                    <span className={`absolute -left-[26.5px] top-1 size-3 rounded-full ring-4 ring-white ${stepColors[step.step]}`} aria-hidden="true" />
                    <div className="flex flex-col gap-0.5 sm:flex-row sm:items-baseline sm:gap-3">
                      <span className="w-36 shrink-0 text-xs font-semibold uppercase tracking-wide text-zinc-500">{t(`step.${step.step}`)}</span>
                      <span className="text-xs tabular-nums text-zinc-500">{formatDateTime(step.at, timeZone)}</span>
                    </div>
                    <p className="mt-0.5 break-words text-sm text-zinc-800">{step.summary}</p>
                    <span className="mt-0.5 flex min-w-0 items-center gap-1">
                      {href ? (
                        <Link href={href} className="min-w-0 truncate font-mono text-xs text-indigo-700 hover:underline">
                          {step.ref_id}
                        </Link>
                      ) : (
                        <code className="min-w-0 truncate font-mono text-xs text-zinc-600">{step.ref_id}</code>
                      )}
                      <CopyButton value={step.ref_id} />
                    </span>
                  </li>
                );
              })}
            </ol>
          )}
          <p className="mt-4 text-xs text-zinc-500">{t("executions.probeNote")}</p>
        </Card>
      </section>

      {lookup.calls.length > 0 && (
        <section aria-labelledby="calls-heading" className="space-y-3">
          <h2 id="calls-heading" className="text-sm font-semibold text-zinc-900">
            {t("executions.calls", { count: lookup.calls.length })}
          </h2>
          {lookup.calls.map((call) => (
            <CallCard key={call.execution_id} call={call} timeZone={timeZone} accountId={lookup.account_id} canRefund={isSupport} linkAccount={linkAccount} />
          ))}
        </section>
      )}
    </div>
  );
}

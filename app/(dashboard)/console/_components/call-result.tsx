"use client";

import type { ReactNode } from "react";
import Link from "next/link";
import { useI18n } from "@/components/i18n/i18n-provider";
import type { BudgetRefusal } from "@/lib/billing/budget-sql";
import { ChargeOutcomeBadge, ReasonCode, SuccessBadge } from "@/components/audit/charge-outcome-badge";
import { ArrowRightIcon, DownloadIcon } from "@/components/ui/action-icons";
import { Badge } from "@/components/ui/badge";
import { ButtonLink, ExternalButtonLink } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyableId } from "@/components/ui/copy-button";
import { JsonViewer } from "@/components/ui/json-viewer";
import { Notice } from "@/components/ui/states";
import { resultFile, type CallResponse } from "@/lib/dashboard/console-api";
import { signinRequiredOf } from "@/lib/dashboard/connections";
import type { RequiredConnection } from "@/lib/dashboard/discover";
import { formatCredits, formatCreditsUnit, formatDuration } from "@/lib/dashboard/format";
import { credits } from "@/lib/money";
import { executionHref, usageForExecutionHref } from "@/lib/dashboard/links";
import { useBudgetReset } from "./budget-text";
import { RegionNotice, SigninNotice } from "./refusal-notices";
import { budgetScopeLabel } from "@/lib/dashboard/budgets";

/** One term of the result's description list: a `div` holding its `dt` and `dd`, directly in the `dl`. */
function Fact({ label, children, testId, className = "" }: { label: string; children: ReactNode; testId?: string; className?: string }) {
  return (
    <div className={`min-w-0 ${className}`}>
      <dt className="text-xs text-zinc-500">{label}</dt>
      <dd className="mt-0.5 break-words text-sm text-zinc-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** The budget a refused Call would have crossed, as the 402's `details[0].input` carries it. */
type BudgetRefusalInput = BudgetRefusal & { needed_credits?: string };

/**
 * A Call a budget refused (402 `billing.budget_exceeded`): which budget, by its scope's name, what it
 * has left beside what the Call needed, and when it resets — in the page's zone, with the year and
 * the zone. Nothing was spent; this is not a problem with the parameters.
 */
function BudgetRefusalNotice({ refusal }: { refusal: BudgetRefusalInput }) {
  const { t, locale } = useI18n();
  const scope = budgetScopeLabel(t, refusal);
  const reset = useBudgetReset(refusal.resets_at);
  const left = credits(refusal.limit_credits).minus(refusal.spent_credits).minus(refusal.reserved_credits);
  const unit = (value: string | number) => formatCreditsUnit(Number(value), locale, t);
  return (
    <Notice tone="error" title={t("console.budgetRefusedTitle")} testId="budget-refusal">
      <p>
        {t("console.budgetRefusedBody", {
          scope,
          period: t(`console.budgetPeriod.${refusal.period}`),
          limit: unit(refusal.limit_credits),
          left: unit(left.isNegative() ? 0 : left.toNumber()),
        })}
        {refusal.needed_credits !== undefined && <> {t("console.budgetNeeded", { needed: unit(refusal.needed_credits) })}</>}
      </p>
      <p className="mt-1" data-testid="budget-refusal-reset">
        {reset}{" "}
        <Link href="/budgets" className="font-medium underline">
          {t("console.budgetManage")}
        </Link>
      </p>
    </Notice>
  );
}

/** A Call's answer: status, reason, charge, bill, timings, the result and where to audit it. */
export function CallResult({ status, body, connection = null, currentUserId }: { status: number; body: CallResponse; connection?: RequiredConnection | null; currentUserId: string }) {
  const { t, locale } = useI18n();
  const outcome = body.execution_outcome;
  const file = resultFile(body.result);
  const summaryMode = body.result?.respond_with === "summary";
  const charged = body.billing?.list_amount_credits ?? body.cost;
  const refusal = body.details?.find((d) => d.type === "budget_exceeded")?.input as BudgetRefusalInput | undefined;
  const signin = outcome?.reason_code === "oauth_signin_required" ? signinRequiredOf(body.result) : null;
  const regionRefused = outcome?.reason_code === "region_restricted";

  return (
    <Card className="p-4 sm:p-5" data-testid="call-result">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-zinc-900">{t("console.callTitle")}</h3>
        <div className="flex flex-wrap items-center gap-1.5" data-testid="call-status">
          <SuccessBadge success={body.success} />
          <Badge tone={status < 300 ? "neutral" : "amber"}>HTTP {status}</Badge>
          {outcome && <ChargeOutcomeBadge outcome={outcome.charge_outcome} />}
          {outcome?.cache_hit && <Badge tone="sky">{t("console.cacheHit")}</Badge>}
        </div>
      </div>

      {refusal ? (
        <div className="mt-3">
          <BudgetRefusalNotice refusal={refusal} />
        </div>
      ) : signin ? (
        <div className="mt-3">
          <SigninNotice signin={signin} connection={connection} currentUserId={currentUserId} />
        </div>
      ) : regionRefused ? (
        <div className="mt-3">
          <RegionNotice />
        </div>
      ) : (
        body.error_message && (
          <div className="mt-3">
            <Notice tone={body.success ? "warn" : "error"}>{body.error_message}</Notice>
          </div>
        )
      )}

      <dl className="mt-4 grid grid-cols-2 gap-x-4 gap-y-3 sm:grid-cols-3">
        <Fact label={t("console.reasonCode")} testId="call-reason">
          <ReasonCode code={outcome?.reason_code} />
        </Fact>
        <Fact label={t("console.charge")} testId="call-charge">
          {formatCreditsUnit(charged, locale, t)}
        </Fact>
        <Fact label={t("console.remaining")} testId="call-remaining">
          {body.remaining_credits === null ? "—" : formatCredits(body.remaining_credits, locale)}
        </Fact>
        <Fact label={t("console.elapsed")}>{formatDuration(body.elapsed_time_ms, locale)}</Fact>
        <Fact label={t("console.executionTime")}>{body.execution_time === undefined ? "—" : formatDuration(body.execution_time * 1000, locale)}</Fact>
        {outcome && <Fact label={t("console.outcome")}>{outcome.outcome}</Fact>}
        {body.billing && (
          <Fact label={t("console.billing")} testId="call-billing" className="col-span-2 sm:col-span-3">
            {body.billing.summary}
          </Fact>
        )}
      </dl>

      {body.execution_id && (
        <div className="mt-4 flex flex-col gap-2 rounded-lg bg-zinc-50 p-3 sm:flex-row sm:items-center sm:justify-between">
          <div className="flex min-w-0 items-center gap-2 text-xs text-zinc-500">
            <span className="shrink-0">execution_id</span>
            <CopyableId value={body.execution_id} />
          </div>
          <div className="flex flex-wrap gap-2">
            <ButtonLink size="sm" href={usageForExecutionHref(body.execution_id)}>
              {t("console.inUsage")}
            </ButtonLink>
            <ButtonLink size="sm" variant="primary" href={executionHref(body.execution_id)} data-testid="audit-link">
              {t("console.auditTrail")}
              <ArrowRightIcon width={16} height={16} />
            </ButtonLink>
          </div>
        </div>
      )}

      {body.result && (
        <div className="mt-4 space-y-3">
          {file && (
            <Notice tone="info" title={summaryMode ? t("console.summaryTitle") : t("console.truncatedTitle")} testId="result-file">
              {file.message && <p className="break-words">{file.message}</p>}
              <ExternalButtonLink size="sm" className="mt-2" href={file.url} target="_blank" rel="noopener noreferrer" download data-testid="download-full">
                <DownloadIcon width={16} height={16} />
                {t("console.downloadFull")}
              </ExternalButtonLink>
              <p className="mt-1 text-xs opacity-80">{t("console.linkExpires")}</p>
            </Notice>
          )}
          {file?.preview != null && (
            <div className="overflow-hidden rounded-lg border border-zinc-200">
              <p className="border-b border-zinc-200 bg-white px-3 py-1.5 text-xs font-medium text-zinc-500">truncated_content</p>
              <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-all bg-zinc-50 p-3 font-mono text-xs text-zinc-700">{file.preview}</pre>
            </div>
          )}
          {file ? (
            <>
              {summaryMode && body.result.summary !== undefined && <JsonViewer value={body.result.summary} label="result.summary" testId="call-result-json" />}
              {body.result.content_schema != null && <JsonViewer value={body.result.content_schema} label="result.content_schema" maxHeight="max-h-64" />}
            </>
          ) : (
            <JsonViewer value={body.result} label="result" testId="call-result-json" />
          )}
        </div>
      )}
      <details className="mt-4 rounded-lg border border-zinc-200">
        <summary className="cursor-pointer px-3 py-2 text-xs font-medium text-zinc-600 hover:bg-zinc-50">{t("console.fullResponse")}</summary>
        <div className="border-t border-zinc-200 p-2">
          <JsonViewer value={body} label={`HTTP ${status}`} maxHeight="max-h-96" />
        </div>
      </details>
      {!refusal && body.details && body.details.length > 0 && <p className="mt-3 text-xs text-zinc-500">{t("console.detailsInForm", { count: body.details.length })}</p>}
    </Card>
  );
}

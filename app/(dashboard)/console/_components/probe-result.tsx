"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Notice } from "@/components/ui/states";
import type { ProbeResponse } from "@/lib/dashboard/console-api";
import { signinRequiredOf } from "@/lib/dashboard/connections";
import type { RequiredConnection } from "@/lib/dashboard/discover";
import { formatCreditsUnit } from "@/lib/dashboard/format";
import { BudgetHeadroom } from "./budget-text";
import { RegionNotice, SigninNotice } from "./refusal-notices";

/** Probe's verdict on the parameters (field errors are shown in the form), its quote, and whether a Call would be refused before anything is sent. */
export function ProbeResult({ result, stale, connection, currentUserId }: { result: ProbeResponse; stale: boolean; connection: RequiredConnection | null; currentUserId: string }) {
  const { t, locale } = useI18n();
  const valid = result.schema?.valid;
  const count = result.schema?.details.length ?? 0;
  const readiness = result.readiness?.callable === false ? result.readiness : null;
  const signin = readiness?.reason_code === "oauth_signin_required" ? signinRequiredOf(readiness) : null;
  return (
    <Card className="p-4 sm:p-5" data-testid="probe-result">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-zinc-900">{t("console.probeTitle")}</h3>
        <div className="flex flex-wrap gap-1.5">
          {stale && <Badge tone="amber">{t("console.probeStale")}</Badge>}
          <Badge tone="neutral">{t("console.notExecuted")}</Badge>
        </div>
      </div>
      {readiness && (
        <div className="mt-3">
          {signin ? (
            <SigninNotice signin={signin} connection={connection} currentUserId={currentUserId} />
          ) : readiness.reason_code === "region_restricted" ? (
            <RegionNotice />
          ) : (
            readiness.message && <Notice tone="warn">{readiness.message}</Notice>
          )}
        </div>
      )}
      {valid !== undefined && (
        <p className={`mt-3 text-sm font-medium ${valid ? "text-emerald-700" : "text-red-700"}`} data-testid="probe-verdict">
          {valid ? t("console.probeValid") : t("console.probeInvalid", { count })}
        </p>
      )}
      {result.quote && (
        <dl className="mt-3 grid grid-cols-2 gap-3 rounded-lg bg-zinc-50 p-3 text-sm sm:grid-cols-3">
          <div>
            <dt className="text-xs text-zinc-500">{t("console.quote")}</dt>
            <dd className="mt-0.5 font-semibold tabular-nums text-zinc-900" data-testid="probe-quote">
              {formatCreditsUnit(result.quote.estimate_credits, locale, t)}
            </dd>
          </div>
          <div>
            <dt className="text-xs text-zinc-500">{t("console.quoteExact")}</dt>
            <dd className="mt-0.5 text-zinc-800">{result.quote.exact ? t("console.exact") : t("console.estimate")}</dd>
          </div>
          <div className="col-span-2 sm:col-span-1">
            <dt className="text-xs text-zinc-500">{t("console.quoteBasis")}</dt>
            <dd className="mt-0.5 break-words text-zinc-800">{result.quote.basis}</dd>
          </div>
        </dl>
      )}
      {result.quote?.budget && (
        <div className="mt-3">
          <BudgetHeadroom budget={result.quote.budget} testId="probe-budget" />
        </div>
      )}
      <p className="mt-3 text-xs text-zinc-500">{t("console.probeNote")}</p>
    </Card>
  );
}

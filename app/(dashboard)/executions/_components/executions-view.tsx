"use client";

import { useEffect, useId, useState, type FormEvent } from "react";
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { ChargeOutcomeBadge } from "@/components/audit/charge-outcome-badge";
import { SearchIcon } from "@/components/ui/action-icons";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { LoadingBlock } from "@/components/ui/states";
import { ApiError } from "@/lib/dashboard/api-client";
import { fetchLookup, fetchUsage } from "@/lib/dashboard/audit-api";
import { formatCredits, formatDateTime } from "@/lib/dashboard/format";
import { executionHref, useAccountInView } from "@/lib/dashboard/links";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { useUrlParams } from "@/lib/dashboard/url-state";
import { LookupResult } from "./lookup-result";

/** The account's latest Calls, as starting points when no id is at hand. */
function RecentCalls({ timeZone }: { timeZone: string }) {
  const { t, locale } = useI18n();
  const query = { kind: "call", page_size: "8" };
  const recent = useQuery({ queryKey: ["usage", "list", query], queryFn: ({ signal }) => fetchUsage(query, signal) });
  if (recent.isPending || recent.isError || recent.data.items.length === 0) return null;
  return (
    <Card className="p-4 sm:p-5">
      <h2 className="text-sm font-semibold text-zinc-900">{t("executions.recent")}</h2>
      <ul className="mt-3 divide-y divide-zinc-100">
        {recent.data.items
          .filter((e) => e.execution_id)
          .map((e) => (
            <li key={e.id} className="flex flex-col gap-1 py-2 sm:flex-row sm:items-center sm:justify-between">
              <Link href={executionHref(e.execution_id ?? "")} className="min-w-0 truncate font-mono text-xs text-indigo-700 hover:underline">
                {e.execution_id}
              </Link>
              {/* Fixed widths after the tool id keep the rows' columns aligned whatever the outcome's label. */}
              <span className="flex min-w-0 flex-wrap items-center gap-2 text-xs text-zinc-500 sm:flex-nowrap">
                <span className="min-w-0 truncate" title={e.tool_id ?? undefined}>{e.tool_name ?? e.tool_id}</span>
                <span className="shrink-0 sm:w-44">
                  <ChargeOutcomeBadge outcome={e.charge_outcome} />
                </span>
                <span className="shrink-0 tabular-nums sm:w-12 sm:text-right">{formatCredits(e.actual_amount_credits, locale)}</span>
                <span className="shrink-0 tabular-nums">{formatDateTime(e.created_at, timeZone, { seconds: false })}</span>
              </span>
            </li>
          ))}
      </ul>
    </Card>
  );
}

export function ExecutionsView({ isSupport }: { isSupport: boolean }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const [params, update] = useUrlParams();
  const id = params.get("id")?.trim() ?? "";
  const accountId = useAccountInView();
  const [draft, setDraft] = useState(id);
  const [accountDraft, setAccountDraft] = useState(accountId ?? "");
  const ids = { id: useId(), account: useId() };
  useEffect(() => setDraft(id), [id]);
  useEffect(() => setAccountDraft(accountId ?? ""), [accountId]);

  const lookup = useQuery({
    queryKey: ["lookup", id, accountId],
    queryFn: ({ signal }) => fetchLookup(id, accountId, signal),
    enabled: Boolean(id),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    update({ id: draft.trim() || null, account_id: isSupport ? accountDraft.trim() || null : null });
  }

  return (
    <div className="space-y-6">
      <form onSubmit={submit} role="search" aria-label={t("executions.searchLabel")} className="rounded-xl border border-zinc-200 bg-white p-4 shadow-xs sm:p-5">
        <div className="flex flex-col gap-3 lg:flex-row lg:items-end">
          <div className="min-w-0 flex-1">
            <FieldLabel htmlFor={ids.id} hint={t("executions.idHint")}>
              {t("executions.id")}
            </FieldLabel>
            <TextInput id={ids.id} value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="exe_… · srch_… · led_… · uuid · session_id" spellCheck={false} autoComplete="off" />
          </div>
          {isSupport && (
            <div className="lg:w-64">
              <FieldLabel htmlFor={ids.account} hint={t("filters.accountHint")}>
                {t("filters.account")}
              </FieldLabel>
              <TextInput id={ids.account} value={accountDraft} onChange={(e) => setAccountDraft(e.target.value)} placeholder="acc_…" spellCheck={false} />
            </div>
          )}
          <Button type="submit" variant="primary" disabled={!draft.trim()}>
            <SearchIcon width={16} height={16} />
            {t("executions.lookUp")}
          </Button>
        </div>
        {isSupport && <p className="mt-2 text-xs text-zinc-500">{t("executions.supportNote")}</p>}
      </form>

      <TimeZoneSwitch tz={tz} />

      {!id ? (
        <>
          <Card className="p-5 text-sm text-zinc-600">
            <p className="font-semibold text-zinc-900">{t("executions.startTitle")}</p>
            <p className="mt-1">{t("executions.startBody")}</p>
          </Card>
          <RecentCalls timeZone={tz.timeZone} />
        </>
      ) : lookup.isPending ? (
        <LoadingBlock label={t("executions.loading")} rows={8} />
      ) : lookup.isError ? (
        <ErrorState
          title={lookup.error instanceof ApiError && lookup.error.status === 404 ? t("executions.notFoundTitle") : t("executions.errorTitle")}
          message={lookup.error instanceof ApiError && lookup.error.status === 404 ? t("executions.notFoundBody", { id }) : lookup.error.message}
          retryLabel={t("common.retry")}
          onRetry={() => void lookup.refetch()}
        />
      ) : (
        <LookupResult lookup={lookup.data} timeZone={tz.timeZone} isSupport={isSupport} />
      )}
    </div>
  );
}

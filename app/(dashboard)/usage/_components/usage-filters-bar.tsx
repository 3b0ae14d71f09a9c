"use client";

import { useId, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ActiveFilterChips, attributionChips } from "@/components/filters/active-filter-chips";
import { CommitInput } from "@/components/filters/commit-input";
import { DateRangePicker } from "@/components/filters/date-range-picker";
import { AccountFilter, BucketFilter, ChipFilter, CreditRangeFilter, FilterField, OptionFilter } from "@/components/filters/filter-fields";
import { FilterIcon } from "@/components/ui/action-icons";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Select } from "@/components/ui/form-controls";
import { apiKeysQueryKey, fetchApiKeys } from "@/lib/dashboard/api-keys";
import { anomalies, channels, chargeOutcomeColors, chargeOutcomes, eventKinds, eventTypes, reasonCodes, type ChargeOutcome } from "@/lib/dashboard/audit-vocab";
import { activeFilterCount, advancedUsageFilters, attributionUsageFilters, type UsageView } from "@/lib/dashboard/usage-filters";
import type { UrlPatch } from "@/lib/dashboard/url-state";

/** Every filter of `GET /auth/usage/history/v2`, kept in the URL under the API's own names. */
export function UsageFiltersBar({
  view,
  timeZone,
  update,
  isSupport,
  toolName,
}: {
  view: UsageView;
  timeZone: string;
  update: (patch: UrlPatch) => void;
  isSupport: boolean;
  toolName?: string | null;
}) {
  const { t } = useI18n();
  const f = view.filter;
  const advancedCount = activeFilterCount(f, advancedUsageFilters);
  const [open, setOpen] = useState(advancedCount > 0);
  const panelId = useId();
  // Filters change the result set: back to its first page.
  const set = (patch: UrlPatch) => update({ ...patch, page: null });
  const keys = useQuery({ queryKey: apiKeysQueryKey, queryFn: ({ signal }) => fetchApiKeys(signal), enabled: open && !isSupport });

  const boolSelect = (name: "success" | "billable_success" | "has_execution_outcome", label: string) => (
    <OptionFilter
      label={label}
      value={f[name]}
      onChange={(v) => set({ [name]: v })}
      options={[
        { value: "true", label: t("common.yes") },
        { value: "false", label: t("common.no") },
      ]}
    />
  );

  return (
    <Card className="space-y-4 p-4 sm:p-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <DateRangePicker range={view.range} timeZone={timeZone} onChange={(patch) => set(patch)} />
        <div className="flex flex-wrap items-end gap-2">
          <BucketFilter value={view.bucket} onChange={(bucket) => update({ bucket })} />
          <Button aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((o) => !o)}>
            <FilterIcon width={16} height={16} />
            {t("filters.more")}
            {advancedCount > 0 && <span className="rounded-full bg-indigo-600 px-1.5 text-[11px] font-semibold text-white">{advancedCount}</span>}
          </Button>
        </div>
      </div>

      <ChipFilter<ChargeOutcome>
        label={t("filters.chargeOutcome")}
        allLabel={t("common.any")}
        value={chargeOutcomes.find((o) => o === f.charge_outcome)}
        onChange={(v) => set({ charge_outcome: v ?? null })}
        options={chargeOutcomes.map((o) => ({ value: o, label: t(`outcome.${o}`), swatch: chargeOutcomeColors[o] }))}
        testId="charge-outcome-chips"
      />

      <ActiveFilterChips
        filters={attributionChips(f, attributionUsageFilters, t).map((chip) => (chip.name === "tool_id" && toolName ? { ...chip, display: toolName } : chip))}
        onRemove={(name) => set({ [name]: null })}
        testId="usage-attribution-filters"
      />

      {isSupport && (
        <div className="max-w-sm">
          <AccountFilter value={f.account_id} onChange={(v) => set({ account_id: v })} hint={t("filters.accountHint")} />
        </div>
      )}

      <div id={panelId} hidden={!open} className="grid gap-3 border-t border-zinc-100 pt-4 sm:grid-cols-2 lg:grid-cols-4">
        <OptionFilter label={t("filters.kind")} value={f.kind} onChange={(v) => set({ kind: v })} options={eventKinds.map((k) => ({ value: k, label: t(`kind.${k}`) }))} />
        <OptionFilter label={t("filters.channel")} value={f.channel} onChange={(v) => set({ channel: v })} options={channels.map((k) => ({ value: k, label: t(`channel.${k}`) }))} />
        <OptionFilter label={t("filters.eventType")} value={f.event_type} onChange={(v) => set({ event_type: v })} options={eventTypes.map((k) => ({ value: k, label: k }))} />
        <OptionFilter label={t("filters.reasonCode")} value={f.reason_code} onChange={(v) => set({ reason_code: v })} options={[...new Set([...reasonCodes, ...(f.reason_code ? [f.reason_code] : [])])].map((code) => ({ value: code, label: code }))} />
        <OptionFilter label={t("filters.anomaly")} value={f.anomaly} onChange={(v) => set({ anomaly: v })} emptyLabel={t("common.none")} options={anomalies.map((a) => ({ value: a, label: t(`anomaly.${a}`) }))} />
        {boolSelect("success", t("filters.success"))}
        {boolSelect("billable_success", t("filters.billableSuccess"))}
        {boolSelect("has_execution_outcome", t("filters.hasOutcome"))}
        <FilterField label={t("filters.outcome")} hint="execution_outcome.outcome">
          {(id) => <CommitInput id={id} value={f.outcome ?? ""} onCommit={(v) => set({ outcome: v })} placeholder="success" spellCheck={false} />}
        </FilterField>
        <FilterField label="execution_id">{(id) => <CommitInput id={id} value={f.execution_id ?? ""} onCommit={(v) => set({ execution_id: v })} placeholder="exe_…" spellCheck={false} />}</FilterField>
        <FilterField label="search_id">{(id) => <CommitInput id={id} value={f.search_id ?? ""} onCommit={(v) => set({ search_id: v })} placeholder="srch_…" spellCheck={false} />}</FilterField>
        <FilterField label={t("filters.apiKey")}>
          {(id) =>
            isSupport ? (
              <CommitInput id={id} value={f.api_key_id ?? ""} onCommit={(v) => set({ api_key_id: v })} placeholder="uuid" spellCheck={false} />
            ) : (
              <Select id={id} value={f.api_key_id ?? ""} onChange={(e) => set({ api_key_id: e.target.value })}>
                <option value="">{t("common.any")}</option>
                {(keys.data ?? []).map((k) => (
                  <option key={k.api_key_id} value={k.api_key_id}>
                    {k.name} ({k.prefix}…)
                  </option>
                ))}
                {f.api_key_id && !keys.data?.some((k) => k.api_key_id === f.api_key_id) && <option value={f.api_key_id}>{f.api_key_id}</option>}
              </Select>
            )
          }
        </FilterField>
        <CreditRangeFilter min={f.min_credits} max={f.max_credits} onChange={set} />
        {advancedCount > 0 && (
          <div className="flex items-end sm:col-span-2 lg:col-span-4">
            <Button size="sm" variant="ghost" onClick={() => set(Object.fromEntries(advancedUsageFilters.map((n) => [n, null])))}>
              {t("filters.clearMore")}
            </Button>
          </div>
        )}
      </div>
    </Card>
  );
}

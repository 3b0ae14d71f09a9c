"use client";

import { useId, useState, type ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ChipGroup } from "@/components/filters/chip-group";
import { CommitInput } from "@/components/filters/commit-input";
import { DateRangePicker } from "@/components/filters/date-range-picker";
import { FilterIcon } from "@/components/ui/action-icons";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FieldLabel, Select } from "@/components/ui/form-controls";
import { apiKeysQueryKey, fetchApiKeys } from "@/lib/dashboard/api-keys";
import { anomalies, buckets, channels, chargeOutcomeColors, chargeOutcomes, eventKinds, eventTypes, reasonCodes, type ChargeOutcome } from "@/lib/dashboard/audit-vocab";
import { activeFilterCount, advancedUsageFilters, type UsageView } from "@/lib/dashboard/usage-filters";
import type { UrlPatch } from "@/lib/dashboard/url-state";

function Field({ label, hint, children }: { label: string; hint?: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="min-w-0">
      <FieldLabel htmlFor={id} hint={hint}>
        {label}
      </FieldLabel>
      {children(id)}
    </div>
  );
}

/** Every filter of `GET /auth/usage/history/v2`, kept in the URL under the API's own names. */
export function UsageFiltersBar({ view, timeZone, update, isSupport }: { view: UsageView; timeZone: string; update: (patch: UrlPatch) => void; isSupport: boolean }) {
  const { t } = useI18n();
  const f = view.filter;
  const advancedCount = activeFilterCount(f, advancedUsageFilters);
  const [open, setOpen] = useState(advancedCount > 0);
  const panelId = useId();
  // Filters change the result set: back to its first page.
  const set = (patch: UrlPatch) => update({ ...patch, page: null });
  const keys = useQuery({ queryKey: apiKeysQueryKey, queryFn: ({ signal }) => fetchApiKeys(signal), enabled: open && !isSupport });

  const boolSelect = (name: "success" | "billable_success" | "has_execution_outcome", label: string) => (
    <Field label={label}>
      {(id) => (
        <Select id={id} value={f[name] ?? ""} onChange={(e) => set({ [name]: e.target.value })}>
          <option value="">{t("common.any")}</option>
          <option value="true">{t("common.yes")}</option>
          <option value="false">{t("common.no")}</option>
        </Select>
      )}
    </Field>
  );

  return (
    <Card className="space-y-4 p-4 sm:p-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <DateRangePicker range={view.range} timeZone={timeZone} onChange={(patch) => set(patch)} />
        <div className="flex flex-wrap items-end gap-2">
          <Field label={t("filters.bucket")}>
            {(id) => (
              <Select id={id} value={view.bucket ?? ""} onChange={(e) => update({ bucket: e.target.value })} className="w-auto">
                <option value="">{t("bucket.auto")}</option>
                {buckets.map((b) => (
                  <option key={b} value={b}>
                    {t(`bucket.${b}`)}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Button aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((o) => !o)}>
            <FilterIcon width={16} height={16} />
            {t("filters.more")}
            {advancedCount > 0 && <span className="rounded-full bg-indigo-600 px-1.5 text-[11px] font-semibold text-white">{advancedCount}</span>}
          </Button>
        </div>
      </div>

      <div>
        <p className="mb-1.5 text-xs font-medium text-zinc-600">{t("filters.chargeOutcome")}</p>
        <ChipGroup<ChargeOutcome>
          label={t("filters.chargeOutcome")}
          allLabel={t("common.any")}
          value={chargeOutcomes.find((o) => o === f.charge_outcome)}
          onChange={(v) => set({ charge_outcome: v ?? null })}
          options={chargeOutcomes.map((o) => ({ value: o, label: t(`outcome.${o}`), swatch: chargeOutcomeColors[o] }))}
          testId="charge-outcome-chips"
        />
      </div>

      {isSupport && (
        <div className="max-w-sm">
          <Field label={t("filters.account")} hint={t("filters.accountHint")}>
            {(id) => <CommitInput id={id} value={f.account_id ?? ""} onCommit={(v) => set({ account_id: v })} placeholder="acc_…" spellCheck={false} />}
          </Field>
        </div>
      )}

      <div id={panelId} hidden={!open} className="grid gap-3 border-t border-zinc-100 pt-4 sm:grid-cols-2 lg:grid-cols-4">
        <Field label={t("filters.kind")}>
          {(id) => (
            <Select id={id} value={f.kind ?? ""} onChange={(e) => set({ kind: e.target.value })}>
              <option value="">{t("common.any")}</option>
              {eventKinds.map((k) => (
                <option key={k} value={k}>
                  {t(`kind.${k}`)}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={t("filters.channel")}>
          {(id) => (
            <Select id={id} value={f.channel ?? ""} onChange={(e) => set({ channel: e.target.value })}>
              <option value="">{t("common.any")}</option>
              {channels.map((k) => (
                <option key={k} value={k}>
                  {t(`channel.${k}`)}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={t("filters.eventType")}>
          {(id) => (
            <Select id={id} value={f.event_type ?? ""} onChange={(e) => set({ event_type: e.target.value })}>
              <option value="">{t("common.any")}</option>
              {eventTypes.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={t("filters.reasonCode")}>
          {(id) => (
            <Select id={id} value={f.reason_code ?? ""} onChange={(e) => set({ reason_code: e.target.value })}>
              <option value="">{t("common.any")}</option>
              {[...new Set([...reasonCodes, ...(f.reason_code ? [f.reason_code] : [])])].map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={t("filters.anomaly")}>
          {(id) => (
            <Select id={id} value={f.anomaly ?? ""} onChange={(e) => set({ anomaly: e.target.value })}>
              <option value="">{t("common.none")}</option>
              {anomalies.map((a) => (
                <option key={a} value={a}>
                  {t(`anomaly.${a}`)}
                </option>
              ))}
            </Select>
          )}
        </Field>
        {boolSelect("success", t("filters.success"))}
        {boolSelect("billable_success", t("filters.billableSuccess"))}
        {boolSelect("has_execution_outcome", t("filters.hasOutcome"))}
        <Field label={t("filters.outcome")} hint="execution_outcome.outcome">
          {(id) => <CommitInput id={id} value={f.outcome ?? ""} onCommit={(v) => set({ outcome: v })} placeholder="success" spellCheck={false} />}
        </Field>
        <Field label="execution_id">{(id) => <CommitInput id={id} value={f.execution_id ?? ""} onCommit={(v) => set({ execution_id: v })} placeholder="exe_…" spellCheck={false} />}</Field>
        <Field label="search_id">{(id) => <CommitInput id={id} value={f.search_id ?? ""} onCommit={(v) => set({ search_id: v })} placeholder="srch_…" spellCheck={false} />}</Field>
        <Field label={t("filters.apiKey")}>
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
        </Field>
        <div className="grid grid-cols-2 gap-2">
          <Field label={t("filters.minCredits")}>{(id) => <CommitInput id={id} inputMode="decimal" value={f.min_credits ?? ""} onCommit={(v) => set({ min_credits: v })} placeholder="0" />}</Field>
          <Field label={t("filters.maxCredits")}>{(id) => <CommitInput id={id} inputMode="decimal" value={f.max_credits ?? ""} onCommit={(v) => set({ max_credits: v })} />}</Field>
        </div>
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

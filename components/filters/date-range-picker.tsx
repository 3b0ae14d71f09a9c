"use client";

import { useId } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { FieldLabel, Select, TextInput } from "@/components/ui/form-controls";
import { rangePresets, type RangePreset, type ResolvedRange } from "@/lib/dashboard/date-range";

/** A preset window (today, 7/30/90 days) or custom dates, in the page's time zone. */
export function DateRangePicker({
  range,
  timeZone,
  onChange,
}: {
  range: ResolvedRange;
  timeZone: string;
  onChange: (patch: { range: RangePreset; start_date?: string | null; end_date?: string | null }) => void;
}) {
  const { t } = useI18n();
  const ids = { preset: useId(), start: useId(), end: useId() };
  return (
    <div className="flex flex-wrap items-end gap-2">
      <div>
        <FieldLabel htmlFor={ids.preset}>{t("filters.range")}</FieldLabel>
        <Select
          id={ids.preset}
          value={range.preset}
          onChange={(e) => {
            const preset = e.target.value as RangePreset;
            // Switching to custom starts from the dates shown, so the view does not jump.
            if (preset === "custom") onChange({ range: preset, start_date: range.startDate ?? null, end_date: range.endDate ?? null });
            else onChange({ range: preset, start_date: null, end_date: null });
          }}
          className="w-auto"
        >
          {rangePresets.map((p) => (
            <option key={p} value={p}>
              {t(`range.${p}`)}
            </option>
          ))}
        </Select>
      </div>
      {range.preset === "custom" ? (
        <>
          <div>
            <FieldLabel htmlFor={ids.start}>{t("filters.from")}</FieldLabel>
            <TextInput id={ids.start} type="date" value={range.startDate?.slice(0, 10) ?? ""} onChange={(e) => onChange({ range: "custom", start_date: e.target.value || null })} className="w-auto" />
          </div>
          <div>
            <FieldLabel htmlFor={ids.end}>{t("filters.to")}</FieldLabel>
            <TextInput id={ids.end} type="date" value={range.endDate?.slice(0, 10) ?? ""} onChange={(e) => onChange({ range: "custom", end_date: e.target.value || null })} className="w-auto" />
          </div>
        </>
      ) : (
        <p className="pb-2 text-xs tabular-nums text-zinc-500" data-testid="range-dates">
          {range.startDate === range.endDate ? range.startDate : `${range.startDate} → ${range.endDate}`} ({timeZone})
        </p>
      )}
    </div>
  );
}

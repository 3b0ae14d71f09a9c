"use client";

import { useId, type ReactNode } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ChipGroup } from "@/components/filters/chip-group";
import { CommitInput } from "@/components/filters/commit-input";
import { FieldLabel, Select } from "@/components/ui/form-controls";
import { buckets } from "@/lib/dashboard/audit-vocab";

/** A labelled filter control; `children` receives the id the label points at. */
export function FilterField({ label, hint, children }: { label: string; hint?: string; children: (id: string) => ReactNode }) {
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

/** A select of one filter: an empty first option (any), then `options`. */
export function OptionFilter({
  label,
  value,
  onChange,
  options,
  emptyLabel,
  className,
}: {
  label: string;
  value: string | undefined;
  onChange: (value: string) => void;
  options: readonly { value: string; label: string }[];
  emptyLabel?: string;
  className?: string;
}) {
  const { t } = useI18n();
  return (
    <FilterField label={label}>
      {(id) => (
        <Select id={id} value={value ?? ""} onChange={(e) => onChange(e.target.value)} className={className}>
          <option value="">{emptyLabel ?? t("common.any")}</option>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </Select>
      )}
    </FilterField>
  );
}

/** The charts' bucket width; empty lets the server choose from the period. */
export function BucketFilter({ value, onChange }: { value: string | undefined; onChange: (value: string) => void }) {
  const { t } = useI18n();
  return <OptionFilter label={t("filters.bucket")} value={value} onChange={onChange} emptyLabel={t("bucket.auto")} options={buckets.map((b) => ({ value: b, label: t(`bucket.${b}`) }))} className="w-auto" />;
}

/** Chips of a single-choice filter under a small caption. */
export function ChipFilter<T extends string>(props: Parameters<typeof ChipGroup<T>>[0]) {
  return (
    <div>
      <p className="mb-1.5 text-xs font-medium text-zinc-600">{props.label}</p>
      <ChipGroup<T> {...props} />
    </div>
  );
}

/** Minimum and maximum credits, each committed on blur or Enter. */
export function CreditRangeFilter({ min, max, onChange }: { min: string | undefined; max: string | undefined; onChange: (patch: { min_credits?: string; max_credits?: string }) => void }) {
  const { t } = useI18n();
  return (
    <div className="grid grid-cols-2 gap-2">
      <FilterField label={t("filters.minCredits")}>{(id) => <CommitInput id={id} inputMode="decimal" value={min ?? ""} onCommit={(v) => onChange({ min_credits: v })} placeholder="0" />}</FilterField>
      <FilterField label={t("filters.maxCredits")}>{(id) => <CommitInput id={id} inputMode="decimal" value={max ?? ""} onCommit={(v) => onChange({ max_credits: v })} />}</FilterField>
    </div>
  );
}

/** The account a support user reads (`account_id`); other users never see it. */
export function AccountFilter({ value, onChange, hint }: { value: string | undefined; onChange: (value: string) => void; hint?: string }) {
  const { t } = useI18n();
  return (
    <FilterField label={t("filters.account")} hint={hint}>
      {(id) => <CommitInput id={id} value={value ?? ""} onCommit={onChange} placeholder="acc_…" spellCheck={false} />}
    </FilterField>
  );
}

"use client";

import type { ReactNode } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { CloseIcon } from "@/components/ui/icons";
import type { AuditQuery } from "@/lib/dashboard/audit-api";
import { isChargeOutcome } from "@/lib/dashboard/audit-vocab";
import type { MessageKey, Translate } from "@/lib/dashboard/i18n";

export interface ActiveFilter {
  /** The URL parameter (the API's name). */
  name: string;
  label: string;
  value: string;
  /** What to show for the value (a name instead of an id); the value by default. */
  display?: ReactNode;
}

/**
 * Filters that arrived in the URL (a link from Spend, a run or a key), each a chip saying what it
 * narrows to, with a button that removes it.
 */
export function ActiveFilterChips({ filters, onRemove, testId }: { filters: ActiveFilter[]; onRemove: (name: string) => void; testId?: string }) {
  const { t } = useI18n();
  if (filters.length === 0) return null;
  return (
    <ul aria-label={t("filters.active")} className="flex flex-wrap gap-1.5" data-testid={testId}>
      {filters.map((f) => (
        <li
          key={f.name}
          data-testid="active-filter"
          data-filter={f.name}
          className="inline-flex max-w-full items-center gap-1 rounded-full border border-indigo-200 bg-indigo-50 py-0.5 pl-3 pr-1 text-xs text-indigo-900"
        >
          <span className="shrink-0 font-medium">{f.label}: </span>
          <span className="min-w-0 truncate font-mono" title={f.value}>
            {f.display ?? f.value}
          </span>
          <button
            type="button"
            onClick={() => onRemove(f.name)}
            aria-label={t("filters.remove", { name: f.label })}
            className="ml-0.5 inline-flex size-5 shrink-0 items-center justify-center rounded-full text-indigo-700 hover:bg-indigo-100"
          >
            <CloseIcon width={12} height={12} />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The chip label of each filter a Spend group can turn into (the API's parameter names). */
const filterLabels: Record<string, MessageKey> = {
  tool_id: "spend.dim.tool",
  provider_id: "spend.dim.provider",
  api_key_id: "spend.dim.api_key",
  oauth_client_id: "spend.dim.oauth_client",
  model: "spend.dim.model",
  run_id: "spend.dim.run_id",
  channel: "spend.dim.channel",
  charge_outcome: "spend.dim.charge_outcome",
};

/** Chips for those of `names` that are set in `filter`, with translated values where they are a closed vocabulary. */
export function attributionChips(filter: AuditQuery, names: readonly string[], t: Translate): ActiveFilter[] {
  return names.flatMap((name) => {
    const value = filter[name];
    const label = filterLabels[name];
    if (!value || !label) return [];
    const display = name === "channel" && (value === "api" || value === "mcp") ? t(`channel.${value}`) : name === "charge_outcome" && isChargeOutcome(value) ? t(`outcome.${value}`) : undefined;
    return [{ name, label: t(label), value, display }];
  });
}

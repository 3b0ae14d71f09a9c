"use client";

import { useId } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { FieldLabel, Select, TextInput } from "@/components/ui/form-controls";
import { respondWithModes, type RespondWithMode } from "@/lib/dashboard/console-api";
import { formatBytes } from "@/lib/dashboard/format";

export const DEFAULT_MAX_RESPONSE_SIZE = 20480;
const SIZES = [1024, DEFAULT_MAX_RESPONSE_SIZE, 102400, -1] as const;

export interface CallOptionsState {
  respondWith: RespondWithMode;
  /** Comma-separated JSONPath expressions rooted at result.data, for `fields:`. */
  fields: string;
  maxResponseSize: number;
}

/** The `respond_with` body field: `full`, `summary`, or `fields:<JSONPath,...>`. */
export function respondWithValue(options: CallOptionsState): string {
  return options.respondWith === "fields" ? `fields:${options.fields.trim()}` : options.respondWith;
}

/** How the Call's result comes back: projection (`respond_with`) and truncation threshold. */
export function CallOptions({ value, onChange }: { value: CallOptionsState; onChange: (next: CallOptionsState) => void }) {
  const { t, locale } = useI18n();
  const ids = { mode: useId(), fields: useId(), size: useId() };
  return (
    <Card className="p-4">
      <h3 className="text-sm font-semibold text-zinc-900">{t("console.callOptions")}</h3>
      <div className="mt-3 grid items-end gap-3 sm:grid-cols-2">
        <div>
          <FieldLabel htmlFor={ids.mode} hint="respond_with">
            {t("console.respondWith")}
          </FieldLabel>
          <Select id={ids.mode} value={value.respondWith} onChange={(e) => onChange({ ...value, respondWith: e.target.value as RespondWithMode })}>
            {respondWithModes.map((mode) => (
              <option key={mode} value={mode}>
                {t(`console.respond.${mode}`)}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <FieldLabel htmlFor={ids.size} hint="max_response_size">
            {t("console.maxSize")}
          </FieldLabel>
          <Select id={ids.size} value={value.maxResponseSize} onChange={(e) => onChange({ ...value, maxResponseSize: Number(e.target.value) })}>
            {SIZES.map((size) => (
              <option key={size} value={size}>
                {size === -1 ? t("console.noLimit") : `${formatBytes(size, locale)}${size === DEFAULT_MAX_RESPONSE_SIZE ? ` (${t("console.defaultSize")})` : ""}`}
              </option>
            ))}
          </Select>
        </div>
        {value.respondWith === "fields" && (
          <div className="sm:col-span-2">
            <FieldLabel htmlFor={ids.fields} hint={t("console.fieldsHint")}>
              {t("console.fields")}
            </FieldLabel>
            <TextInput
              id={ids.fields}
              value={value.fields}
              onChange={(e) => onChange({ ...value, fields: e.target.value })}
              placeholder="$.results[*].value, $.unit"
              spellCheck={false}
              className="font-mono text-xs"
            />
          </div>
        )}
      </div>
    </Card>
  );
}

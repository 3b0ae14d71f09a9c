"use client";

import { useId } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { OneOfRequiredNote } from "@/components/catalog/tool-meta";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Select, TextArea, TextInput } from "@/components/ui/form-controls";
import { Notice } from "@/components/ui/states";
import type { ValidationDetail } from "@/lib/dashboard/console-api";
import type { CapabilityResult } from "@/lib/dashboard/discover";
import { formatBytes } from "@/lib/dashboard/format";
import { describeFileValue, fileAsDataUri, oneOfStatus, parameterOfError, type FormField, type FormValues } from "@/lib/dashboard/param-form";

export type EditorMode = "form" | "json";

const LONG_TEXT = /text|json|csv|content|body|html|markdown/i;

function FieldControl({ field, id, value, invalid, describedBy, onChange }: { field: FormField; id: string; value: string; invalid: boolean; describedBy?: string; onChange: (v: string) => void }) {
  const { t } = useI18n();
  const common = { id, invalid, "aria-describedby": describedBy, "aria-required": field.required || undefined };
  switch (field.kind) {
    case "enum":
      return (
        <Select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{t("console.notSet")}</option>
          {field.options?.map((o) => (
            <option key={String(o)} value={String(o)}>
              {String(o)}
            </option>
          ))}
        </Select>
      );
    case "boolean":
      return (
        <Select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{t("console.notSet")}</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </Select>
      );
    case "number":
      return <TextInput {...common} inputMode="decimal" value={value} onChange={(e) => onChange(e.target.value)} placeholder={field.default !== undefined ? String(field.default) : field.type} />;
    case "list":
      return <TextInput {...common} value={value} onChange={(e) => onChange(e.target.value)} placeholder={t("console.listPlaceholder", { type: field.itemsType ?? "" })} spellCheck={false} />;
    case "json":
      return <TextArea {...common} rows={4} value={value} onChange={(e) => onChange(e.target.value)} placeholder={field.type === "array" ? "[ ]" : "{ }"} spellCheck={false} />;
    case "file":
      return <FileControl {...common} value={value} onChange={onChange} />;
    case "text":
      return LONG_TEXT.test(field.name) ? (
        <TextArea {...common} rows={3} value={value} onChange={(e) => onChange(e.target.value)} className="font-sans text-sm" />
      ) : (
        <TextInput {...common} value={value} onChange={(e) => onChange(e.target.value)} placeholder={field.default !== undefined ? String(field.default) : undefined} />
      );
  }
}

/** A file parameter: the chosen file is read into a data: URI (its name and type kept) and shown by name, type and size. */
function FileControl({ id, value, invalid, onChange, ...aria }: { id: string; value: string; invalid: boolean; "aria-describedby"?: string; "aria-required"?: boolean; onChange: (v: string) => void }) {
  const { t, locale } = useI18n();
  const file = value ? describeFileValue(value) : null;
  return (
    <div className="space-y-1.5">
      {/* The native control's text follows the browser's language, not the page's: it is hidden behind our own label. */}
      <div className="flex flex-wrap items-center gap-2">
        <label
          htmlFor={id}
          className="cursor-pointer rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 has-[+input:focus-visible]:ring-2 has-[+input:focus-visible]:ring-sky-500"
        >
          {t("console.fileChoose")}
        </label>
        <input
          id={id}
          type="file"
          aria-invalid={invalid || undefined}
          {...aria}
          onChange={async (e) => {
            const chosen = e.target.files?.[0];
            onChange(chosen ? await fileAsDataUri(chosen) : "");
          }}
          className="sr-only"
        />
        {!file && <span className="text-sm text-zinc-500">{t("console.fileNone")}</span>}
      </div>
      {file && (
        <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-600" data-testid="file-chosen">
          <span className="break-all">
            {file.dataUri
              ? t("console.fileChosen", { name: file.name ?? "—", type: file.type ?? "application/octet-stream", size: formatBytes(file.bytes, locale) })
              : t("console.fileInline", { size: formatBytes(file.bytes, locale) })}
          </span>
          <button type="button" onClick={() => onChange("")} className="rounded px-1.5 py-0.5 font-medium text-zinc-700 underline-offset-2 hover:underline">
            {t("console.fileRemove")}
          </button>
        </div>
      )}
    </div>
  );
}

function typeLabel(field: FormField): string {
  return field.kind === "list" ? `${field.itemsType}[]` : field.kind === "file" ? "file" : field.type;
}

/**
 * The parameters of a Call: a form generated from the tool's schema, or the raw JSON. Errors
 * from Probe and Call (`details[]`) appear under the field they name.
 */
export function ParameterEditor(props: {
  tool: CapabilityResult;
  fields: FormField[];
  mode: EditorMode;
  onMode: (mode: EditorMode) => void;
  values: FormValues;
  onValue: (name: string, value: string) => void;
  extras: Record<string, unknown>;
  jsonText: string;
  onJsonText: (text: string) => void;
  jsonError: string | null;
  fieldErrors: Record<string, string>;
  issues: ValidationDetail[];
  parameters: Record<string, unknown> | null;
  onReset: () => void;
  onClear: () => void;
  hasSample: boolean;
}) {
  const { t } = useI18n();
  const baseId = useId();
  const { tool, fields, mode, issues } = props;
  const general = issues.filter((issue) => parameterOfError(issue.loc) === null || !fields.some((f) => f.name === parameterOfError(issue.loc)));
  const groups = oneOfStatus(tool.one_of_required, props.parameters ?? {});
  const extraNames = Object.keys(props.extras);

  return (
    <Card className="p-4 sm:p-5">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="text-sm font-semibold text-zinc-900">{t("console.parameters")}</h3>
        <div className="flex flex-wrap items-center gap-2">
          <div role="group" aria-label={t("console.editorMode")} className="inline-flex rounded-lg border border-zinc-200 bg-white p-0.5 text-xs">
            {(["form", "json"] as const).map((m) => (
              <button
                key={m}
                type="button"
                aria-pressed={mode === m}
                onClick={() => props.onMode(m)}
                className={`rounded-md px-2.5 py-1 font-medium ${mode === m ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"}`}
              >
                {m === "form" ? t("console.form") : t("console.json")}
              </button>
            ))}
          </div>
          {props.hasSample && (
            <Button size="sm" variant="ghost" onClick={props.onReset}>
              {t("console.resetExample")}
            </Button>
          )}
          <Button size="sm" variant="ghost" onClick={props.onClear}>
            {t("common.clear")}
          </Button>
        </div>
      </div>
      <p className="mt-1 text-xs text-zinc-500">{props.hasSample ? t("console.prefilled") : t("console.noSample")}</p>

      <div className="mt-4 space-y-4">
        {groups.length > 0 && <OneOfRequiredNote groups={tool.one_of_required} satisfied={groups.map((g) => g.satisfied)} />}
        {general.length > 0 && (
          <Notice tone="error" testId="general-issues">
            <ul className="list-disc space-y-0.5 pl-4">
              {general.map((issue, i) => (
                <li key={i}>{issue.msg}</li>
              ))}
            </ul>
          </Notice>
        )}

        {mode === "json" ? (
          <div>
            <label htmlFor={`${baseId}-json`} className="mb-1 block text-xs font-medium text-zinc-600">
              {t("console.jsonLabel")}
            </label>
            <TextArea
              id={`${baseId}-json`}
              rows={14}
              value={props.jsonText}
              onChange={(e) => props.onJsonText(e.target.value)}
              invalid={Boolean(props.jsonError)}
              aria-describedby={props.jsonError ? `${baseId}-json-error` : undefined}
              spellCheck={false}
              data-testid="params-json"
            />
            {props.jsonError && (
              <p id={`${baseId}-json-error`} className="mt-1 text-xs text-red-700">
                {props.jsonError === "not_object" ? t("console.jsonNotObject") : t("console.jsonInvalid", { error: props.jsonError })}
              </p>
            )}
          </div>
        ) : fields.length === 0 ? (
          <p className="text-sm text-zinc-500">{t("tool.noParams")}</p>
        ) : (
          <div className="space-y-4" data-testid="params-form">
            {fields.map((field) => {
              const id = `${baseId}-${field.name}`;
              const fieldIssues = issues.filter((issue) => parameterOfError(issue.loc) === field.name);
              const clientError = props.fieldErrors[field.name];
              const invalid = fieldIssues.length > 0 || Boolean(clientError);
              const describedBy = [field.description ? `${id}-help` : null, invalid ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
              return (
                <div key={field.name} data-testid={`field-${field.name}`}>
                  <label htmlFor={id} className="mb-1 flex flex-wrap items-baseline gap-x-2 text-xs">
                    <span className="font-mono font-semibold text-zinc-900">{field.name}</span>
                    <span className="font-mono text-sky-700">{typeLabel(field)}</span>
                    {field.required ? <span className="font-medium text-red-600">{t("tool.required")}</span> : <span className="text-zinc-500">{t("tool.optional")}</span>}
                  </label>
                  <FieldControl field={field} id={id} value={props.values[field.name] ?? ""} invalid={invalid} describedBy={describedBy} onChange={(v) => props.onValue(field.name, v)} />
                  {field.description && (
                    <p id={`${id}-help`} className="mt-1 text-xs text-zinc-500">
                      {field.description}
                    </p>
                  )}
                  {invalid && (
                    <p id={`${id}-error`} className="mt-1 text-xs font-medium text-red-700" data-testid="field-error">
                      {clientError ? t("console.jsonInvalidShort") : fieldIssues.map((issue) => issue.msg).join("; ")}
                    </p>
                  )}
                </div>
              );
            })}
            {extraNames.length > 0 && <Notice tone="warn">{t("console.extras", { names: extraNames.join(", ") })}</Notice>}
          </div>
        )}
      </div>
    </Card>
  );
}

"use client";

import { useMemo, useState } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { CopyButton } from "./copy-button";

const MAX_CHILDREN = 200;
const OPEN_DEPTH = 2;

function Scalar({ value }: { value: unknown }) {
  if (value === null) return <span className="text-zinc-500">null</span>;
  if (typeof value === "string") return <span className="break-all text-emerald-700">{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className="text-sky-700">{String(value)}</span>;
  if (typeof value === "boolean") return <span className="text-violet-700">{String(value)}</span>;
  return <span className="text-zinc-500">{String(value)}</span>;
}

function Node({ name, value, depth, last }: { name?: string | number; value: unknown; depth: number; last: boolean }) {
  const { t } = useI18n();
  const label =
    name === undefined ? null : typeof name === "number" ? (
      <span className="text-zinc-500">{name}: </span>
    ) : (
      <span className="text-indigo-700">{JSON.stringify(name)}: </span>
    );
  const comma = last ? "" : ",";

  if (value === null || typeof value !== "object") {
    return (
      <div className="pl-4">
        {label}
        <Scalar value={value} />
        {comma}
      </div>
    );
  }

  const isArray = Array.isArray(value);
  const entries: [string | number, unknown][] = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
  const [open, close] = isArray ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    return (
      <div className="pl-4">
        {label}
        <span className="text-zinc-500">
          {open}
          {close}
        </span>
        {comma}
      </div>
    );
  }
  const shown = entries.slice(0, MAX_CHILDREN);
  return (
    <details open={depth < OPEN_DEPTH} className="group pl-4">
      <summary className="-ml-4 cursor-pointer list-none rounded pl-4 marker:hidden hover:bg-zinc-100 [&::-webkit-details-marker]:hidden">
        <span className="-ml-3.5 inline-block w-3.5 text-zinc-400 group-open:rotate-90" aria-hidden="true">
          ▸
        </span>
        {label}
        <span className="text-zinc-500">{open}</span>
        <span className="text-zinc-500 group-open:hidden">
          {" "}
          {t(isArray ? "json.items" : "json.keys", { count: entries.length })} {close}
          {comma}
        </span>
      </summary>
      {shown.map(([key, child], i) => (
        <Node key={String(key)} name={key} value={child} depth={depth + 1} last={i === entries.length - 1} />
      ))}
      {entries.length > shown.length && <div className="pl-4 text-zinc-500">{t("json.more", { count: entries.length - shown.length })}</div>}
      <div className="text-zinc-500">
        {close}
        {comma}
      </div>
    </details>
  );
}

/** A JSON value as a collapsible tree (keyboard: each level is a <details> toggle) or as raw text. */
export function JsonViewer({ value, label, maxHeight = "max-h-[28rem]", testId }: { value: unknown; label: string; maxHeight?: string; testId?: string }) {
  const { t } = useI18n();
  const [raw, setRaw] = useState(false);
  const text = useMemo(() => JSON.stringify(value, null, 2) ?? "undefined", [value]);
  return (
    <div className="overflow-hidden rounded-lg border border-zinc-200 bg-zinc-50" data-testid={testId}>
      <div className="flex items-center justify-between gap-2 border-b border-zinc-200 bg-white px-3 py-1.5">
        <span className="truncate text-xs font-medium text-zinc-500">{label}</span>
        <div className="flex items-center gap-1">
          <button
            type="button"
            onClick={() => setRaw((r) => !r)}
            aria-pressed={raw}
            className="rounded-md px-2 py-1 text-xs font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900"
          >
            {raw ? t("json.tree") : t("json.raw")}
          </button>
          <CopyButton value={text} label={t("json.copy")} />
        </div>
      </div>
      <div className={`${maxHeight} overflow-auto p-3 font-mono text-xs leading-5 text-zinc-800`}>
        {raw ? (
          <pre className="whitespace-pre-wrap break-all">{text}</pre>
        ) : (
          <Node value={value} depth={0} last />
        )}
      </div>
    </div>
  );
}

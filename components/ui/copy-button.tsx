"use client";

import { useEffect, useState } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { CheckIcon, CopyIcon } from "./action-icons";

/** Copies a value (an id for a support ticket, a new API key) and says so for a moment. */
export function CopyButton({ value, label, className = "", showLabel = false }: { value: string; label?: string; className?: string; showLabel?: boolean }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Without clipboard permission (plain http, some browsers): select-and-copy fallback.
      const area = document.createElement("textarea");
      area.value = value;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setCopied(true);
  }

  const text = copied ? t("common.copied") : (label ?? t("common.copy"));
  return (
    <button
      type="button"
      onClick={() => void copy()}
      aria-label={showLabel ? undefined : `${text}${label ? "" : `: ${value}`}`}
      title={text}
      className={`inline-flex shrink-0 items-center gap-1 rounded-md p-1 text-xs font-medium text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 ${className}`}
    >
      {copied ? <CheckIcon width={16} height={16} className="text-emerald-600" /> : <CopyIcon width={16} height={16} />}
      {showLabel && <span>{text}</span>}
      <span className="sr-only" aria-live="polite">
        {copied ? t("common.copied") : ""}
      </span>
    </button>
  );
}

/** An id in monospace with a copy button. */
export function CopyableId({ value, className = "" }: { value: string; className?: string }) {
  return (
    <span className={`inline-flex min-w-0 max-w-full items-center gap-1 ${className}`}>
      <code className="min-w-0 truncate font-mono text-xs text-zinc-700" title={value}>
        {value}
      </code>
      <CopyButton value={value} />
    </span>
  );
}

"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { ClockIcon } from "@/components/ui/action-icons";
import { useTimeZone, type TimeZoneState } from "@/lib/dashboard/time-zone";

/**
 * States the time zone every time and bucket on the page is in, and switches between the user's
 * zone and UTC (so a day total can be compared with an invoice in either).
 */
export function TimeZoneSwitch({ tz, className = "" }: { tz: TimeZoneState; className?: string }) {
  const { t } = useI18n();
  const localIsUtc = tz.localZone === "UTC";
  const custom = !tz.isUtc && tz.timeZone !== tz.localZone;
  const options: { utc: boolean; label: string }[] = [
    { utc: false, label: t("tz.local", { zone: tz.localZone }) },
    { utc: true, label: "UTC" },
  ];
  return (
    <div className={`flex flex-wrap items-center gap-2 text-xs text-zinc-500 ${className}`} data-testid="tz-switch">
      <ClockIcon width={16} height={16} className="shrink-0" />
      <span>
        {t("tz.times")} <strong className="font-semibold text-zinc-700" data-testid="tz-current">{tz.timeZone}</strong>
        {localIsUtc && !custom && <span> ({t("tz.yours")})</span>}
      </span>
      {(!localIsUtc || custom) && (
        <div role="group" aria-label={t("tz.label")} className="inline-flex rounded-lg border border-zinc-200 bg-white p-0.5">
          {options.map((option) => {
            const active = !custom && option.utc === tz.isUtc;
            return (
              <button
                key={option.label}
                type="button"
                aria-pressed={active}
                onClick={() => tz.setUtc(option.utc)}
                className={`rounded-md px-2 py-0.5 font-medium ${active ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100"}`}
              >
                {option.label}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}

/** The switch for a page whose server part renders it: it reads the page's zone itself. */
export function PageTimeZoneSwitch({ className = "" }: { className?: string }) {
  return <TimeZoneSwitch tz={useTimeZone()} className={className} />;
}

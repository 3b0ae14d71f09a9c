"use client";

import { useSyncExternalStore } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { AccountFilter } from "@/components/filters/filter-fields";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { UTC, useTimeZone, type TimeZoneState } from "@/lib/dashboard/time-zone";
import { useUrlParams, type UrlPatch } from "@/lib/dashboard/url-state";
import type { StatementTarget } from "@/lib/dashboard/statements";

const noSubscription = () => () => {};

export interface StatementTargetState {
  /** What the API is asked for: the page's zone (UTC is the API's default, so it is left out) and, for support, the account. */
  target: StatementTarget;
  tz: TimeZoneState;
  /**
   * The page's zone is known only after hydration (the server render assumes UTC): reading a
   * statement before would compute, and for a past month store, one in a zone nobody asked for.
   */
  ready: boolean;
  /** The query string that carries the zone named in the URL and the account to another statement page. */
  linkQuery: string;
  update: (patch: UrlPatch) => void;
}

/** The statement's zone is the page's, as on every other page: `?tz=`, else the choice kept in this browser, else the browser's zone. */
export function useStatementTarget(): StatementTargetState {
  const tz = useTimeZone();
  const [params, update] = useUrlParams();
  const ready = useSyncExternalStore(noSubscription, () => true, () => false);
  const account = params.get("account_id") || undefined;
  const carried = new URLSearchParams();
  if (params.get("tz")) carried.set("tz", tz.timeZone);
  if (account) carried.set("account_id", account);
  const qs = carried.toString();
  return {
    target: { tz: tz.timeZone === UTC ? undefined : tz.timeZone, account_id: account },
    tz,
    ready,
    linkQuery: qs ? `?${qs}` : "",
    update,
  };
}

/** The zone switch every page has, what a zone means for a statement, and support's account box. */
export function StatementTargetControls({ state, isSupport }: { state: StatementTargetState; isSupport: boolean }) {
  const { t } = useI18n();
  return (
    <div className="flex flex-wrap items-end gap-x-6 gap-y-3 print:hidden">
      <div className="min-w-0 max-w-xl space-y-1">
        <TimeZoneSwitch tz={state.tz} />
        <p className="text-xs text-zinc-500" data-testid="statement-zone-note">
          {t("statements.zoneNote", { zone: state.tz.timeZone })}
        </p>
      </div>
      {isSupport && (
        <div className="w-full sm:w-56">
          <AccountFilter value={state.target.account_id} onChange={(v) => state.update({ account_id: v || null })} />
        </div>
      )}
    </div>
  );
}

/** "September 2026" / "2026年9月". */
export function monthLabel(month: string, locale: string): string {
  const [y, m] = month.split("-").map(Number);
  return new Intl.DateTimeFormat(locale === "zh" ? "zh-CN" : "en-GB", { year: "numeric", month: "long", timeZone: "UTC" }).format(new Date(Date.UTC(y, m - 1, 1)));
}

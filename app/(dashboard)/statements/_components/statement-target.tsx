"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { AccountFilter } from "@/components/filters/filter-fields";
import { browserTimeZone, UTC } from "@/lib/dashboard/time-zone";
import { useUrlParams } from "@/lib/dashboard/url-state";
import type { StatementTarget } from "@/lib/dashboard/statements";

/** The statement's time zone (UTC unless the URL names one: statements are final per zone) and, for support, the account. */
export function useStatementTarget(): [StatementTarget, ReturnType<typeof useUrlParams>[1]] {
  const [params, update] = useUrlParams();
  const tz = params.get("tz") || undefined;
  const account = params.get("account_id") || undefined;
  return [{ tz: tz && tz !== UTC ? tz : undefined, account_id: account }, update];
}

/** The query string that carries the target to another statement page. */
export function targetQuery(q: StatementTarget): string {
  const p = new URLSearchParams();
  if (q.tz) p.set("tz", q.tz);
  if (q.account_id) p.set("account_id", q.account_id);
  const s = p.toString();
  return s ? `?${s}` : "";
}

export function StatementTargetControls({ target, update, isSupport }: { target: StatementTarget; update: (patch: Record<string, string | null>) => void; isSupport: boolean }) {
  const { t } = useI18n();
  const local = browserTimeZone();
  const options = [{ value: "", label: t("statements.tzUtc") }, ...(local !== UTC ? [{ value: local, label: t("statements.tzLocal", { zone: local }) }] : [])];
  if (target.tz && target.tz !== local) options.push({ value: target.tz, label: target.tz });
  return (
    <div className="flex flex-wrap items-end gap-3 print:hidden">
      <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600">
        {t("statements.tz")}
        <select
          className="rounded-lg border border-zinc-300 bg-white px-2.5 py-1.5 text-sm text-zinc-800"
          value={target.tz ?? ""}
          onChange={(e) => update({ tz: e.target.value || null })}
          data-testid="statement-tz"
        >
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      {isSupport && (
        <div className="w-56">
          <AccountFilter value={target.account_id} onChange={(v) => update({ account_id: v || null })} />
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

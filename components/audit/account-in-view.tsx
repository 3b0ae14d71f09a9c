"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { fetchAccountSummary } from "@/lib/dashboard/audit-api";
import { useAccountInView } from "@/lib/dashboard/links";

/**
 * For support staff reading a customer's account (`account_id` in the URL): whose account every
 * figure on the page belongs to — its name, owners and id — and the way back to their own. The
 * side panel a link opened goes with the account.
 */
export function AccountInViewBanner() {
  const { t } = useI18n();
  const account = useAccountInView();
  const pathname = usePathname();
  const params = useSearchParams();
  const summary = useQuery({ queryKey: ["account-summary", account], queryFn: ({ signal }) => fetchAccountSummary(account, signal), enabled: account !== undefined });
  if (account === undefined) return null;
  const own = new URLSearchParams(params);
  for (const name of ["account_id", "entry", "event"]) own.delete(name);
  const back = own.size > 0 ? `${pathname}?${own}` : pathname;
  return (
    <div role="status" className="mb-6 flex flex-col gap-2 rounded-xl border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 sm:flex-row sm:items-center sm:justify-between" data-testid="account-in-view">
      <p className="min-w-0 [overflow-wrap:anywhere]">
        <span className="font-medium">{t("shell.readingAccount")}:</span>{" "}
        {summary.data ? (
          <>
            <span className="font-semibold">{summary.data.name}</span> ·{" "}
            {summary.data.owners.length > 0 ? t("shell.readingAccountOwners", { owners: summary.data.owners.join(", ") }) : t("shell.readingAccountNoOwner")} ·{" "}
          </>
        ) : summary.isPending ? (
          <>{t("shell.readingAccountLoading")} · </>
        ) : null}
        <code className="font-mono text-xs">{account}</code>
      </p>
      <Link href={back} className="shrink-0 font-medium text-amber-900 underline hover:text-amber-700" data-testid="back-to-own-account">
        {t("shell.backToOwnAccount")}
      </Link>
    </div>
  );
}

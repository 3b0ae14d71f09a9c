"use client";

import { useQuery } from "@tanstack/react-query";
import { balanceQueryKey, fetchBalance, type CreditsBalance } from "@/lib/dashboard/balance";
import type { Locale, MessageKey } from "@/lib/dashboard/i18n";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { InfoIcon } from "@/components/ui/icons";

type CreditKind = "paid" | "bonus" | "reward";

// Shades of the one accent colour tell the kinds apart in the bar and the legend.
const kinds: { kind: CreditKind; field: "paid_credits" | "bonus_credits" | "reward_credits"; label: MessageKey; hint: MessageKey; swatch: string }[] = [
  { kind: "paid", field: "paid_credits", label: "overview.paid", hint: "overview.paidHint", swatch: "bg-indigo-600" },
  { kind: "bonus", field: "bonus_credits", label: "overview.bonus", hint: "overview.bonusHint", swatch: "bg-indigo-400" },
  { kind: "reward", field: "reward_credits", label: "overview.reward", hint: "overview.rewardHint", swatch: "bg-indigo-200" },
];

function formatCredits(value: number, locale: Locale): string {
  return new Intl.NumberFormat(locale === "zh" ? "zh-CN" : "en-US", { maximumFractionDigits: 6 }).format(value);
}

function StatCard({ label, hint, value, swatch, testId }: { label: string; hint: string; value: string; swatch: string; testId: string }) {
  return (
    <Card className="p-4 sm:p-5">
      <div className="flex items-center gap-2">
        <span className={`size-2.5 shrink-0 rounded-full ${swatch}`} aria-hidden="true" />
        <p className="text-sm font-medium text-zinc-600">{label}</p>
      </div>
      <p className="mt-3 text-2xl font-semibold tabular-nums tracking-tight text-zinc-900" data-testid={testId}>
        {value}
      </p>
      <p className="mt-1 text-xs text-zinc-500">{hint}</p>
    </Card>
  );
}

function CompositionBar({ balance }: { balance: CreditsBalance }) {
  const { t, locale } = useI18n();
  const total = balance.total_credits;
  return (
    <div>
      <p className="sr-only">{t("overview.composition")}</p>
      <div className="flex h-2.5 w-full overflow-hidden rounded-full bg-zinc-100" aria-hidden="true">
        {total > 0 &&
          kinds.map(({ kind, field, swatch }) => {
            const value = balance[field];
            return value > 0 ? <div key={kind} className={swatch} style={{ width: `${(value / total) * 100}%` }} /> : null;
          })}
      </div>
      <ul className="mt-3 flex flex-wrap gap-x-5 gap-y-1 text-xs text-zinc-500">
        {kinds.map(({ kind, field, label, swatch }) => (
          <li key={kind} className="flex items-center gap-1.5">
            <span className={`size-2 rounded-full ${swatch}`} aria-hidden="true" />
            {t(label)} <span className="tabular-nums text-zinc-700">{formatCredits(balance[field], locale)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function LoadingState() {
  const { t } = useI18n();
  return (
    <div aria-busy="true" aria-live="polite">
      <span className="sr-only">{t("overview.loading")}</span>
      <Card className="p-6">
        <div className="h-4 w-32 animate-pulse rounded bg-zinc-100" />
        <div className="mt-4 h-10 w-48 animate-pulse rounded bg-zinc-100" />
        <div className="mt-6 h-2.5 w-full animate-pulse rounded-full bg-zinc-100" />
      </Card>
      <div className="mt-4 grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        {[0, 1, 2, 3].map((i) => (
          <Card key={i} className="p-5">
            <div className="h-4 w-20 animate-pulse rounded bg-zinc-100" />
            <div className="mt-4 h-7 w-24 animate-pulse rounded bg-zinc-100" />
          </Card>
        ))}
      </div>
    </div>
  );
}

function EmptyNotice({ accountId }: { accountId: string }) {
  const { t } = useI18n();
  return (
    <div className="mt-5 flex items-start gap-3 rounded-lg border border-indigo-100 bg-indigo-50/60 p-4" data-testid="balance-empty">
      <InfoIcon className="mt-0.5 shrink-0 text-indigo-600" />
      <div className="min-w-0 flex-1">
        <p className="text-sm font-semibold text-zinc-900">{t("overview.emptyTitle")}</p>
        <p className="mt-1 text-sm text-zinc-600">{t("overview.emptyBody")}</p>
        <code className="mt-2 block overflow-x-auto whitespace-nowrap rounded-md bg-white px-3 py-2 font-mono text-xs text-zinc-700 ring-1 ring-zinc-200">
          npm run cli -- credits grant --account {accountId} --amount 100
        </code>
      </div>
    </div>
  );
}

/** The account's balance by kind, from `GET /api/v1/auth/credits`. */
export function BalancePanel() {
  const { t, locale } = useI18n();
  const query = useQuery({ queryKey: balanceQueryKey, queryFn: ({ signal }) => fetchBalance(signal) });

  if (query.isPending) return <LoadingState />;
  if (query.isError) {
    return <ErrorState title={t("overview.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />;
  }

  const balance = query.data;
  const empty = balance.total_credits === 0 && balance.reserved_credits === 0;
  return (
    <section aria-label={t("overview.balance")}>
      <Card className="p-6">
        <div className="flex flex-col gap-1 sm:flex-row sm:items-start sm:justify-between">
          <div>
            <h2 className="text-sm font-medium text-zinc-600">{t("overview.totalAvailable")}</h2>
            <p className="mt-2 flex items-baseline gap-2">
              <span className="text-4xl font-semibold tabular-nums tracking-tight text-indigo-600" data-testid="balance-total-available">
                {formatCredits(balance.total_available_credits, locale)}
              </span>
              <span className="text-sm text-zinc-500">{t("overview.credits")}</span>
            </p>
            <p className="mt-1 text-xs text-zinc-500">{t("overview.totalAvailableHint")}</p>
          </div>
          <dl className="mt-3 grid grid-cols-[auto_minmax(0,1fr)] gap-x-6 gap-y-1 text-sm sm:mt-0 sm:text-right">
            <dt className="text-zinc-500">{t("overview.total")}</dt>
            <dd className="tabular-nums font-medium text-zinc-900">{formatCredits(balance.total_credits, locale)}</dd>
            <dt className="text-zinc-500">{t("overview.account")}</dt>
            <dd className="truncate font-mono text-xs leading-5 text-zinc-600" title={balance.account_id}>
              {balance.account_id}
            </dd>
          </dl>
        </div>
        <div className="mt-6">{empty ? <EmptyNotice accountId={balance.account_id} /> : <CompositionBar balance={balance} />}</div>
      </Card>

      <div className="mt-4 grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
        {kinds.map(({ kind, field, label, hint, swatch }) => (
          <StatCard key={kind} label={t(label)} hint={t(hint)} value={formatCredits(balance[field], locale)} swatch={swatch} testId={`balance-${kind}`} />
        ))}
        <StatCard
          label={t("overview.reserved")}
          hint={t("overview.reservedHint")}
          value={formatCredits(balance.reserved_credits, locale)}
          swatch="bg-zinc-300"
          testId="balance-reserved"
        />
      </div>
    </section>
  );
}

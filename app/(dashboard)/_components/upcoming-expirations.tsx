"use client";

import { Suspense } from "react";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { expirationsQueryKey, fetchExpirations, type CreditExpirations } from "@/lib/dashboard/expirations";
import { formatCredits, formatZonedDateTime, numberLocale } from "@/lib/dashboard/format";
import type { Locale, MessageKey } from "@/lib/dashboard/i18n";
import { useTimeZone } from "@/lib/dashboard/time-zone";

type Expiration = CreditExpirations["items"][number];

const SHOWN = 5;

// The balance panel's shades of the accent colour for the kinds.
const kinds: Record<Expiration["kind"], { label: MessageKey; swatch: string }> = {
  paid: { label: "overview.paid", swatch: "bg-indigo-600" },
  bonus: { label: "overview.bonus", swatch: "bg-indigo-400" },
  reward: { label: "overview.reward", swatch: "bg-indigo-200" },
};

/** "in 3 days", "in 5 hours", "tomorrow": how far off an expiry is, in the reader's language. */
function fromNow(iso: string, locale: Locale): string {
  const seconds = (new Date(iso).getTime() - Date.now()) / 1000;
  const format = new Intl.RelativeTimeFormat(numberLocale(locale), { numeric: "auto" });
  if (seconds < 3600) return format.format(Math.max(1, Math.round(seconds / 60)), "minute");
  if (seconds < 48 * 3600) return format.format(Math.round(seconds / 3600), "hour");
  return format.format(Math.round(seconds / 86400), "day");
}

function ExpirationRow({ item, timeZone }: { item: Expiration; timeZone: string }) {
  const { t, locale } = useI18n();
  const due = new Date(item.expires_at).getTime() <= Date.now();
  return (
    <li className="flex flex-col gap-1 py-2.5 sm:flex-row sm:items-center sm:justify-between sm:gap-4" data-testid="expiration-row">
      <div className="flex min-w-0 items-center gap-2">
        <span className={`size-2.5 shrink-0 rounded-full ${kinds[item.kind].swatch}`} aria-hidden="true" />
        <span className="text-sm font-medium text-zinc-900">{t(kinds[item.kind].label)}</span>
        <span className="text-sm font-semibold tabular-nums text-zinc-900" data-testid="expiration-remaining">
          {formatCredits(item.remaining_credits, locale)}
        </span>
        {item.remaining_credits !== item.amount_credits && (
          <span className="truncate text-xs text-zinc-500">
            {t("expiring.left", { remaining: formatCredits(item.remaining_credits, locale), amount: formatCredits(item.amount_credits, locale) })}
          </span>
        )}
      </div>
      <p className="pl-4.5 text-sm text-zinc-600 sm:pl-0 sm:text-right" title={item.expires_at}>
        {due ? (
          <span className="font-medium text-amber-700">{t("expiring.now")}</span>
        ) : (
          <>
            {t("expiring.at", { date: formatZonedDateTime(item.expires_at, timeZone, locale) })}{" "}
            <span className="text-xs text-zinc-500">({fromNow(item.expires_at, locale)})</span>
          </>
        )}
      </p>
    </li>
  );
}

function ExpirationsCard() {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const query = useQuery({ queryKey: expirationsQueryKey, queryFn: ({ signal }) => fetchExpirations(signal) });

  if (query.isError) {
    return (
      <div className="mt-4">
        <ErrorState title={t("expiring.title")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      </div>
    );
  }
  // Most accounts never get credits that expire: no card until there is something to show.
  if (!query.isSuccess || query.data.items.length === 0) return null;

  const { items, has_more } = query.data;
  const total = items.reduce((sum, item) => sum + item.remaining_credits, 0);
  const hidden = items.length - SHOWN;
  return (
    <section aria-labelledby="expirations-heading" className="mt-4" data-testid="upcoming-expirations">
      <Card className="p-4 sm:p-5">
        <div className="flex flex-col gap-1 sm:flex-row sm:items-baseline sm:justify-between">
          <h2 id="expirations-heading" className="text-sm font-semibold text-zinc-900">
            {t("expiring.title")}
          </h2>
          <p className="text-sm font-medium tabular-nums text-amber-700" data-testid="expiring-total">
            {t("expiring.total", { credits: formatCredits(total, locale), n: total })}
          </p>
        </div>
        <p className="mt-1 text-xs text-zinc-500">{t("expiring.hint", { tz: tz.timeZone })}</p>
        <ol className="mt-2 divide-y divide-zinc-100">
          {items.slice(0, SHOWN).map((item) => (
            <ExpirationRow key={item.grant_id} item={item} timeZone={tz.timeZone} />
          ))}
        </ol>
        {(hidden > 0 || has_more) && (
          <p className="mt-2 text-xs text-zinc-500">{has_more ? t("expiring.moreAtLeast", { count: Math.max(hidden, 0) }) : t("expiring.more", { count: hidden })}</p>
        )}
      </Card>
    </section>
  );
}

/** The account's credits that will expire, soonest first, from `GET /api/v1/auth/credits/expirations`. */
export function UpcomingExpirations() {
  // The time zone comes from the URL (useSearchParams), which needs a Suspense boundary.
  return (
    <Suspense fallback={null}>
      <ExpirationsCard />
    </Suspense>
  );
}

"use client";

import { useEffect, useId, useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { ApiError } from "@/lib/dashboard/api-client";
import { autoTopupQueryKey, failureReason, fetchAutoTopup, formatMoney, removeAutoTopupCard, saveAutoTopup, startCardSetup, type AutoTopup } from "@/lib/dashboard/billing";
import { formatCreditsUnit, formatDateTime } from "@/lib/dashboard/format";
import type { Translate } from "@/lib/dashboard/i18n";
import { useAccountInView } from "@/lib/dashboard/links";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { useUrlParams } from "@/lib/dashboard/url-state";
import { AUTO_TOPUP_MAX_FAILURES } from "@/lib/vocab/payments";

const stateTone = { off: "neutral", needs_card: "amber", active: "green", paused: "red" } as const;

/**
 * Auto top-up on the Billing page: its state, rule and card for everyone who reads the account; the
 * owner turns it on, sets the threshold, amount and daily limit, and saves or removes the card
 * (Stripe's Checkout in setup mode). Hidden where credits are not sold (the API answers 404).
 */
export function AutoTopupSection({ canEdit }: { canEdit: boolean }) {
  const { t } = useI18n();
  const account = useAccountInView();
  const [params] = useUrlParams();
  const cardReturn = params.get("card");
  const query = useQuery({
    queryKey: [...autoTopupQueryKey, account],
    queryFn: ({ signal }) => fetchAutoTopup(account, signal),
    retry: (count, err) => !(err instanceof ApiError && err.status === 404) && count < 2,
    // Back from saving a card: asked again until Stripe's webhook has stored it.
    refetchInterval: (q) => (cardReturn === "saved" && !q.state.data?.card ? 1500 : q.state.data?.in_flight_payment_id ? 3000 : false),
  });
  if (query.isError && query.error instanceof ApiError && query.error.status === 404) return null;
  return (
    <section aria-labelledby="auto-topup-heading" className="space-y-3" data-testid="auto-topup">
      <h2 id="auto-topup-heading" className="text-base font-semibold text-zinc-900">
        {t("billing.autoTopup.title")}
      </h2>
      {cardReturn === "canceled" && (
        <Notice tone="info" testId="card-returned">
          {t("billing.autoTopup.cardCanceled")}
        </Notice>
      )}
      {cardReturn === "saved" && query.data && (
        <Notice tone={query.data.card ? "success" : "info"} testId="card-returned">
          {query.data.card ? t("billing.autoTopup.cardSaved") : t("billing.autoTopup.cardWaiting")}
        </Notice>
      )}
      {query.isPending ? (
        <LoadingBlock label={t("billing.autoTopup.loading")} rows={2} />
      ) : query.isError ? (
        <Notice tone="error" title={t("billing.autoTopup.errorTitle")}>
          {query.error.message}
        </Notice>
      ) : (
        <AutoTopupCard topup={query.data} canEdit={canEdit && account === undefined} />
      )}
    </section>
  );
}

function AutoTopupCard({ topup, canEdit }: { topup: AutoTopup; canEdit: boolean }) {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const credits = (n: number) => formatCreditsUnit(n, locale, t);
  return (
    <Card className="space-y-4 p-4 sm:p-5">
      <div className="flex flex-wrap items-center gap-2">
        <span data-testid="auto-topup-state" data-state={topup.state}>
          <Badge tone={stateTone[topup.state]}>{t(`billing.autoTopup.state.${topup.state}`)}</Badge>
        </span>
        <span className="text-sm text-zinc-700" data-testid="auto-topup-rule">
          {topup.threshold_credits !== null && topup.amount_credits !== null
            ? t("billing.autoTopup.rule", {
                threshold: credits(topup.threshold_credits),
                amount: credits(topup.amount_credits),
                price: topup.amount_minor === null ? "—" : formatMoney(topup.amount_minor, topup.currency, locale),
              })
            : t("billing.autoTopup.noRule")}
        </span>
      </div>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-zinc-500">{t("billing.autoTopup.card")}</dt>
          <dd className="font-medium text-zinc-900" data-testid="auto-topup-card">
            {topup.card ? t("billing.autoTopup.cardLine", { brand: (topup.card.brand ?? "card").toUpperCase(), last4: topup.card.last4 ?? "····", month: String(topup.card.exp_month ?? "").padStart(2, "0"), year: String(topup.card.exp_year ?? "") }) : t("billing.autoTopup.noCard")}
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500">{t("billing.autoTopup.dailyLimit")}</dt>
          <dd className="font-medium text-zinc-900">{topup.daily_limit_credits === null ? "—" : credits(topup.daily_limit_credits)}</dd>
        </div>
        <div>
          <dt className="text-zinc-500">{t("billing.autoTopup.bought24h")}</dt>
          <dd className="font-medium text-zinc-900" data-testid="auto-topup-bought">
            {credits(topup.bought_last_24h_credits)}
          </dd>
        </div>
      </dl>
      {topup.in_flight_payment_id && (
        <Notice tone="info" testId="auto-topup-in-flight">
          {t("billing.autoTopup.inFlight", { id: topup.in_flight_payment_id })}
        </Notice>
      )}
      {topup.state === "paused" ? (
        <Notice tone="error" title={t("billing.autoTopup.pausedTitle", { n: topup.consecutive_failures })} testId="auto-topup-paused">
          {t("billing.autoTopup.pausedBody", { reason: failureReason(topup.last_failure?.code ?? null, topup.last_failure?.message ?? null, t), time: topup.paused_at ? formatDateTime(topup.paused_at, tz.timeZone) : "" })}
        </Notice>
      ) : (
        topup.last_failure &&
        topup.consecutive_failures > 0 && (
          <Notice tone="warn" testId="auto-topup-failure">
            {t("billing.autoTopup.lastFailure", {
              reason: failureReason(topup.last_failure.code, topup.last_failure.message, t),
              n: topup.consecutive_failures,
              max: AUTO_TOPUP_MAX_FAILURES,
            })}
          </Notice>
        )
      )}
      {canEdit && <AutoTopupForm topup={topup} t={t} />}
    </Card>
  );
}

/** The owner's controls: on or off, the three amounts, and the card. */
function AutoTopupForm({ topup, t }: { topup: AutoTopup; t: Translate }) {
  const ids = { enabled: useId(), threshold: useId(), amount: useId(), limit: useId() };
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(topup.enabled);
  const [threshold, setThreshold] = useState(topup.threshold_credits === null ? "" : String(topup.threshold_credits));
  const [amount, setAmount] = useState(topup.amount_credits === null ? "" : String(topup.amount_credits));
  const [limit, setLimit] = useState(topup.daily_limit_credits === null ? "" : String(topup.daily_limit_credits));
  const [saved, setSaved] = useState(false);
  useEffect(() => setEnabled(topup.enabled), [topup.enabled]);
  const refresh = (data: AutoTopup) => queryClient.setQueriesData({ queryKey: autoTopupQueryKey }, data);
  const save = useMutation({
    mutationFn: () =>
      saveAutoTopup({
        enabled,
        ...(threshold.trim() ? { threshold_credits: threshold.trim() } : {}),
        ...(amount.trim() ? { amount_credits: amount.trim() } : {}),
        ...(limit.trim() ? { daily_limit_credits: limit.trim() } : {}),
      }),
    onSuccess: (data) => {
      refresh(data);
      setSaved(true);
      void queryClient.invalidateQueries({ queryKey: ["billing", "payments"] });
    },
  });
  const setup = useMutation({ mutationFn: startCardSetup, onSuccess: (s) => window.location.assign(s.checkout_url) });
  const remove = useMutation({ mutationFn: removeAutoTopupCard, onSuccess: refresh });

  function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    save.mutate();
  }

  const field = (id: string, label: string, hint: string, value: string, set: (v: string) => void, testId: string) => (
    <div>
      <FieldLabel htmlFor={id} hint={hint}>
        {label}
      </FieldLabel>
      <TextInput id={id} inputMode="decimal" value={value} onChange={(e) => set(e.target.value)} data-testid={testId} />
    </div>
  );

  return (
    <div className="space-y-4 border-t border-zinc-100 pt-4">
      <form onSubmit={submit} className="space-y-4" noValidate>
        <label htmlFor={ids.enabled} className="flex items-start gap-2 text-sm text-zinc-800">
          <input id={ids.enabled} type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} className="mt-0.5 accent-indigo-600" data-testid="auto-topup-enabled" />
          <span>
            <span className="font-medium">{t("billing.autoTopup.enable")}</span>
            {topup.state === "paused" && <span className="block text-xs text-zinc-500">{t("billing.autoTopup.resumeHint")}</span>}
          </span>
        </label>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
          {field(ids.threshold, t("billing.autoTopup.threshold"), t("billing.autoTopup.thresholdHint"), threshold, setThreshold, "auto-topup-threshold")}
          {field(ids.amount, t("billing.autoTopup.amount"), t("billing.autoTopup.amountHint"), amount, setAmount, "auto-topup-amount")}
          {field(ids.limit, t("billing.autoTopup.limit"), t("billing.autoTopup.limitHint"), limit, setLimit, "auto-topup-limit")}
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" variant="primary" disabled={save.isPending} data-testid="auto-topup-save">
            {t("billing.autoTopup.save")}
          </Button>
          <Button type="button" onClick={() => setup.mutate()} disabled={setup.isPending} data-testid="auto-topup-save-card">
            {setup.isPending ? t("billing.redirecting") : topup.card ? t("billing.autoTopup.replaceCard") : t("billing.autoTopup.saveCard")}
          </Button>
          {topup.card && (
            <Button type="button" variant="ghost" onClick={() => remove.mutate()} disabled={remove.isPending} data-testid="auto-topup-remove-card">
              {t("billing.autoTopup.removeCard")}
            </Button>
          )}
          {saved && !save.isPending && (
            <span className="text-sm text-green-700" role="status" data-testid="auto-topup-saved">
              {t("billing.autoTopup.saved")}
            </span>
          )}
        </div>
        {enabled && !topup.card && <p className="text-xs text-zinc-500">{t("billing.autoTopup.needsCardHint")}</p>}
        {(save.isError || setup.isError || remove.isError) && (
          <Notice tone="error" title={t("billing.autoTopup.saveError")} testId="auto-topup-error">
            {(save.error ?? setup.error ?? remove.error)?.message}
          </Notice>
        )}
      </form>
    </div>
  );
}

"use client";

import { useId, useMemo, useState, type FormEvent, type ReactNode } from "react";
import Link from "next/link";
import { keepPreviousData, useMutation, useQuery } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { AuditListSection, UrlPagination } from "@/components/audit/audit-page";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { billingConfigQueryKey, fetchBillingConfig, fetchPayment, fetchPayments, formatMoney, priceMinor, startCheckout, type BillingConfig, type Payment } from "@/lib/dashboard/billing";
import { formatCount, formatCreditsUnit } from "@/lib/dashboard/format";
import { ledgerEntryHref, useAccountInView } from "@/lib/dashboard/links";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { pagingParams, useUrlParams } from "@/lib/dashboard/url-state";
import { InstantCell, StatusCell } from "./cells";
import { ReconciliationSection } from "./reconciliation-section";
import { AutoTopupSection } from "./auto-topup-section";

/**
 * Billing: the owner buys credits through Stripe Checkout (a pack or an amount), comes back to a
 * payment that waits for Stripe's webhook and turns into credits, and everyone who reads the
 * account sees its payments, each linked to its ledger row and Stripe's receipt.
 */
export function BillingView({ canBuy }: { canBuy: boolean }) {
  const account = useAccountInView();
  const [params] = useUrlParams();
  const returned = params.get("payment");
  // Support reading another account sees that account's payments, not the support account's offer.
  const buying = canBuy && account === undefined;
  // The offer matters only to the one who can buy: nobody else asks for it.
  const config = useQuery({ queryKey: billingConfigQueryKey, queryFn: ({ signal }) => fetchBillingConfig(signal), enabled: buying });
  return (
    <div className="space-y-8">
      {returned && <ReturnedPayment paymentId={returned} canceled={params.get("canceled") === "1"} />}
      {buying && (config.isPending ? <LoadingBlock label="" rows={3} /> : config.data ? <BuyCredits config={config.data} /> : null)}
      <AutoTopupSection canEdit={canBuy} />
      <PaymentsSection />
      <ReconciliationSection />
    </div>
  );
}

/** Back from Checkout: the payment as Stripe's webhook leaves it, asked again until it is no longer pending. */
function ReturnedPayment({ paymentId, canceled }: { paymentId: string; canceled: boolean }) {
  const { t, locale } = useI18n();
  const account = useAccountInView();
  const payment = useQuery({
    queryKey: ["billing", "payment", paymentId, account],
    queryFn: ({ signal }) => fetchPayment(paymentId, account, signal),
    refetchInterval: (q) => (canceled || (q.state.data && q.state.data.status !== "pending") ? false : 1500),
  });
  if (payment.isError) return <Notice tone="error" title={t("billing.returnedErrorTitle")}>{payment.error.message}</Notice>;
  const p = payment.data;
  if (!p) return <LoadingBlock label={t("billing.waiting")} rows={1} />;
  if (canceled && p.status === "pending") {
    return (
      <Notice tone="info" title={t("billing.canceledTitle")} testId="payment-returned">
        {t("billing.canceledBody")}
      </Notice>
    );
  }
  if (p.status === "pending") {
    return (
      <Notice tone="info" title={t("billing.pendingTitle")} testId="payment-returned">
        <span data-status="pending">{t("billing.pendingBody", { amount: formatMoney(p.amount_minor, p.currency, locale), credits: formatCreditsUnit(p.credits, locale, t) })}</span>
      </Notice>
    );
  }
  if (p.status === "succeeded") {
    return (
      <Notice tone="success" title={t("billing.succeededTitle", { credits: formatCreditsUnit(p.credits, locale, t) })} testId="payment-returned">
        <span data-status="succeeded">
          {t("billing.succeededBody")}{" "}
          {p.ledger_entry_id && (
            <Link href={ledgerEntryHref(p.ledger_entry_id)} className="font-medium underline" data-testid="payment-ledger-link">
              {t("billing.seeLedgerRow")}
            </Link>
          )}
        </span>
      </Notice>
    );
  }
  return (
    <Notice tone="warn" title={t(p.status === "expired" ? "billing.expiredTitle" : "billing.failedTitle")} testId="payment-returned">
      <span data-status={p.status}>{t("billing.notChargedBody")}</span>
    </Notice>
  );
}

/** Packs and an amount of the owner's choosing, priced as the server prices them; Buy goes to Stripe's Checkout. */
function BuyCredits({ config }: { config: BillingConfig }) {
  const { t, locale } = useI18n();
  const ids = { amount: useId() };
  const [amount, setAmount] = useState(config.packs[0] ? String(config.packs[0].credits) : "");
  const [pack, setPack] = useState<number | null>(config.packs[0]?.credits ?? null);
  const [checked, setChecked] = useState(false);
  const checkout = useMutation({
    mutationFn: () => startCheckout(pack !== null ? { pack } : { credits: amount.trim() }),
    onSuccess: (payment) => {
      if (payment.checkout_url) window.location.assign(payment.checkout_url);
    },
  });

  if (!config.enabled || !config.currency || !config.credit_price_minor) {
    return (
      <Notice tone="info" title={t("billing.offTitle")} testId="billing-off">
        {t("billing.offBody")}
      </Notice>
    );
  }
  const currency = config.currency;
  const price = priceMinor(amount, config.credit_price_minor);
  const value = Number(amount);
  const inBounds = amount.trim() !== "" && Number.isFinite(value) && value >= (config.min_credits ?? 0) && value <= (config.max_credits ?? Infinity);
  const valid = inBounds && price !== null;
  const money = (minor: number) => formatMoney(minor, currency, locale);

  function submit(event: FormEvent) {
    event.preventDefault();
    setChecked(true);
    if (valid) checkout.mutate();
  }

  return (
    <Card className="p-4 sm:p-5" data-testid="buy-credits">
      <h2 className="text-base font-semibold text-zinc-900">{t("billing.buyTitle")}</h2>
      <p className="mt-1 text-sm text-zinc-600">
        {t("billing.priceLine", { price: formatMoney(config.credit_price_minor, currency, locale), min: formatCount(config.min_credits ?? 0, locale), max: formatCount(config.max_credits ?? 0, locale) })}
      </p>
      {config.debt_credits > 0 && (
        <div className="mt-3">
          <Notice tone="warn" testId="billing-debt">
            {t("billing.debt", { credits: formatCreditsUnit(config.debt_credits, locale, t) })}
          </Notice>
        </div>
      )}
      <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
        {config.packs.length > 0 && (
          <fieldset>
            <legend className="mb-2 text-sm font-medium text-zinc-800">{t("billing.packs")}</legend>
            <div className="grid grid-cols-1 gap-2 min-[420px]:grid-cols-3">
              {config.packs.map((p) => (
                <label
                  key={p.credits}
                  className={`flex cursor-pointer flex-col rounded-lg border px-3 py-2.5 text-sm has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-500 ${pack === p.credits ? "border-indigo-500 bg-indigo-50" : "border-zinc-200 hover:border-zinc-300"}`}
                  data-testid="pack"
                >
                  <input
                    type="radio"
                    name="pack"
                    className="sr-only"
                    checked={pack === p.credits}
                    onChange={() => {
                      setPack(p.credits);
                      setAmount(String(p.credits));
                    }}
                  />
                  <span className="font-semibold text-zinc-900">{formatCreditsUnit(p.credits, locale, t)}</span>
                  <span className="text-zinc-600">{money(p.amount_minor)}</span>
                </label>
              ))}
            </div>
          </fieldset>
        )}
        <div className="max-w-xs">
          <FieldLabel htmlFor={ids.amount} hint={t("billing.amountHint", { min: formatCount(config.min_credits ?? 0, locale), max: formatCount(config.max_credits ?? 0, locale) })}>
            {t("billing.amount")}
          </FieldLabel>
          <TextInput
            id={ids.amount}
            inputMode="decimal"
            value={amount}
            onChange={(e) => {
              setAmount(e.target.value);
              setPack(config.packs.find((p) => String(p.credits) === e.target.value.trim())?.credits ?? null);
            }}
            invalid={checked && !valid}
            data-testid="buy-amount"
          />
          {checked && !valid && (
            <p className="mt-1 text-sm text-red-700" role="alert">
              {!inBounds ? t("billing.amountOutOfBounds", { min: formatCount(config.min_credits ?? 0, locale), max: formatCount(config.max_credits ?? 0, locale) }) : t("billing.amountNotWhole")}
            </p>
          )}
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" variant="primary" disabled={checkout.isPending} data-testid="buy-button">
            {checkout.isPending ? t("billing.redirecting") : price !== null && inBounds ? t("billing.buyFor", { amount: money(price) }) : t("billing.buy")}
          </Button>
          <span className="text-xs text-zinc-500">{t("billing.stripeNote")}</span>
        </div>
        {checkout.isError && (
          <Notice tone="error" title={t("billing.checkoutErrorTitle")} testId="checkout-error">
            {checkout.error.message}
          </Notice>
        )}
      </form>
    </Card>
  );
}

const column = createColumnHelper<Payment>();

const statusTone = { pending: "amber", succeeded: "green", failed: "red", expired: "neutral" } as const;

function PaymentsSection() {
  const { t } = useI18n();
  const account = useAccountInView();
  const [params, update] = useUrlParams();
  const { page, pageSize } = pagingParams(params);
  const query = { page: String(page), page_size: String(Math.min(pageSize, 100)), account_id: account };
  const list = useQuery({ queryKey: ["billing", "payments", query], queryFn: ({ signal }) => fetchPayments(query, signal), placeholderData: keepPreviousData, refetchInterval: 5000 });
  return (
    <AuditListSection
      headingId="payments-heading"
      title={t("billing.paymentsTitle")}
      query={list}
      loadingLabel={t("billing.loading")}
      errorTitle={t("billing.errorTitle")}
      empty={<EmptyState testId="payments-empty" title={t("billing.emptyTitle")} body={t("billing.emptyBody")} />}
    >
      {(data) => <PaymentsTable payments={data.items} busy={list.isFetching} footer={<UrlPagination page={page} pageSize={pageSize} total={data.total} update={update} />} />}
    </AuditListSection>
  );
}

function PaymentsTable({ payments, busy, footer }: { payments: Payment[]; busy: boolean; footer: ReactNode }) {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const account = useAccountInView();
  const columns = useMemo(
    () => [
      column.accessor("created_at", {
        header: () => t("usage.colTime", { tz: tz.timeZone }),
        cell: (info) => <InstantCell iso={info.getValue()} timeZone={tz.timeZone} />,
        meta: { primary: true },
      }),
      column.accessor("status", {
        header: () => t("billing.colStatus"),
        cell: (info) => {
          const p = info.row.original;
          return (
            <span className="flex flex-col items-start gap-0.5">
              <StatusCell status={p.status} tone={statusTone[p.status]} label={t(`billing.status.${p.status}`)} testId="payment-status" title={p.failure_message ?? undefined} />
              {p.kind === "auto_topup" && <span className="text-xs text-zinc-500" data-testid="payment-kind">{t("billing.kindAutoTopup")}</span>}
            </span>
          );
        },
        meta: { primary: true },
      }),
      column.accessor("credits", {
        header: () => t("billing.colCredits"),
        cell: (info) => <span className="font-medium text-zinc-900">{formatCreditsUnit(info.getValue(), locale, t)}</span>,
        meta: { align: "right" },
      }),
      column.accessor("amount_minor", {
        header: () => t("billing.colAmount"),
        cell: (info) => {
          const p = info.row.original;
          return (
            <span className="flex flex-col items-end">
              <span className="tabular-nums">{formatMoney(p.amount_minor, p.currency, locale)}</span>
              {p.refunded_minor > 0 && <span className="text-xs text-red-700">{t("billing.refunded", { amount: formatMoney(p.refunded_minor, p.currency, locale) })}</span>}
            </span>
          );
        },
        meta: { align: "right" },
      }),
      column.accessor("payment_id", {
        header: () => t("billing.colPayment"),
        cell: (info) => <code className="font-mono text-xs text-zinc-600" title={info.row.original.stripe_payment_intent_id ?? undefined}>{info.getValue()}</code>,
        meta: { hideOnPhone: true },
      }),
      column.display({
        id: "links",
        header: () => t("billing.colLinks"),
        cell: (info) => {
          const p = info.row.original;
          return (
            <span className="flex flex-wrap gap-x-3 gap-y-1 text-sm">
              {p.ledger_entry_id && (
                <Link href={ledgerEntryHref(p.ledger_entry_id, account)} className="font-medium text-indigo-700 hover:underline" data-testid="payment-ledger">
                  {t("billing.ledgerRow")}
                </Link>
              )}
              {p.receipt_url && (
                <a href={p.receipt_url} target="_blank" rel="noreferrer" className="font-medium text-indigo-700 hover:underline" data-testid="payment-receipt">
                  {t("billing.receipt")}
                </a>
              )}
              {!p.ledger_entry_id && !p.receipt_url && <span className="text-zinc-500">—</span>}
            </span>
          );
        },
      }),
    ],
    [t, locale, tz.timeZone, account],
  );
  return <DataTable data={payments} columns={columns} caption={t("billing.paymentsTitle")} getRowId={(p) => p.payment_id} rowTestId="payment-row" busy={busy} footer={footer} />;
}

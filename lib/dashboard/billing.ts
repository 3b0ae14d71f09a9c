import type { z } from "zod";
import type { AutoTopupBodySchema, AutoTopupSchema, BillingConfigSchema, CardSetupSchema, CheckoutBodySchema, PaymentListSchema, PaymentSchema, ReconciliationSchema } from "../api/routes/billing-schemas";
import { apiData } from "./api-client";
import { clean, type AuditQuery } from "./audit-api";
import type { Translate } from "./i18n";

/** `GET /api/v1/auth/billing/…` and the checkout (docs/billing.md, Buying credits); types from the API's schemas. */
export type BillingConfig = z.infer<typeof BillingConfigSchema>;
export type Payment = z.infer<typeof PaymentSchema>;
export type PaymentList = z.infer<typeof PaymentListSchema>;
export type CheckoutBody = z.infer<typeof CheckoutBodySchema>;
export type Reconciliation = z.infer<typeof ReconciliationSchema>;
export type ReconciliationLine = Reconciliation["lines"][number];

export type AutoTopup = z.infer<typeof AutoTopupSchema>;
export type AutoTopupBody = z.infer<typeof AutoTopupBodySchema>;
export type CardSetup = z.infer<typeof CardSetupSchema>;

export const billingConfigQueryKey = ["billing", "config"] as const;
export const autoTopupQueryKey = ["billing", "auto-topup"] as const;

/** The server's offer (price, packs, bounds) and the signed-in account's debt. */
export function fetchBillingConfig(signal?: AbortSignal): Promise<BillingConfig> {
  return apiData<BillingConfig>("/auth/billing/config", { signal });
}

export function fetchPayments(query: AuditQuery, signal?: AbortSignal): Promise<PaymentList> {
  return apiData<PaymentList>("/auth/billing/payments", { query: clean(query), signal });
}

export function fetchPayment(paymentId: string, accountId: string | undefined, signal?: AbortSignal): Promise<Payment> {
  return apiData<Payment>(`/auth/billing/payments/${encodeURIComponent(paymentId)}`, { query: clean({ account_id: accountId }), signal });
}

/** Stripe's balance transactions of [from, to) matched with the account's payments and ledger rows. */
export function fetchReconciliation(query: { from: string; to: string; account_id?: string }, signal?: AbortSignal): Promise<Reconciliation> {
  return apiData<Reconciliation>("/auth/billing/reconciliation", { query: clean(query), signal });
}

/** A calendar month in UTC as the report's [from, to): `offset` 0 is this month, -1 the last. */
export function monthPeriod(now: Date, offset: number): { from: string; to: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  return { from: start.toISOString().slice(0, 10), to: end.toISOString().slice(0, 10) };
}

/** Asks for a Checkout page; the browser then goes to `checkout_url`. */
export function startCheckout(body: CheckoutBody): Promise<Payment> {
  return apiData<Payment>("/auth/billing/checkout", { method: "POST", body });
}

/** The account's auto top-up (docs/billing.md, Auto top-up). */
export function fetchAutoTopup(accountId: string | undefined, signal?: AbortSignal): Promise<AutoTopup> {
  return apiData<AutoTopup>("/auth/billing/auto-topup", { query: clean({ account_id: accountId }), signal });
}

export function saveAutoTopup(body: AutoTopupBody): Promise<AutoTopup> {
  return apiData<AutoTopup>("/auth/billing/auto-topup", { method: "PUT", body });
}

/** Asks for Stripe's page that saves a card; the browser then goes to `checkout_url`. */
export function startCardSetup(): Promise<CardSetup> {
  return apiData<CardSetup>("/auth/billing/auto-topup/card", { method: "POST" });
}

export function removeAutoTopupCard(): Promise<AutoTopup> {
  return apiData<AutoTopup>("/auth/billing/auto-topup/card", { method: "DELETE" });
}

/** The number of minor units in one unit of `currency` (2 for usd, 0 for jpy), as Intl knows it. */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * An amount of money given in minor units — an integer, or an exact decimal string for a price per
 * credit below a cent ("0.5") — in the page's language: "$12.50", "US$0.005". The number is
 * formatted from its exact decimal text, never through a float.
 */
export function formatMoney(minor: number | string, currency: string, locale: string): string {
  const digits = minorDigits(currency);
  const text = typeof minor === "number" ? String(Math.trunc(minor)) : minor.trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return text;
  const [, sign, whole, fraction = ""] = m;
  const padded = whole.padStart(digits + 1, "0");
  const major = digits === 0 ? padded : padded.slice(0, -digits);
  const cents = (digits === 0 ? "" : padded.slice(-digits)) + fraction;
  const decimal = cents ? `${sign}${major}.${cents}` : `${sign}${major}`;
  const formatter = new Intl.NumberFormat(locale, { style: "currency", currency: currency.toUpperCase(), minimumFractionDigits: digits, maximumFractionDigits: Math.max(digits, cents.replace(/0+$/, "").length) });
  // Intl formats a decimal string exactly (ECMA-402 2023); TypeScript's lib types only numbers.
  return formatter.format(decimal as unknown as number);
}

/**
 * The price of `credits` at `pricePerCreditMinor` minor units each, in minor units, when it is a
 * whole number of them (the server refuses a purchase that is not); null otherwise. Exact: both are
 * decimals of at most 6 places, multiplied as integers of millionths.
 */
export function priceMinor(credits: string, pricePerCreditMinor: string): number | null {
  const micro = (v: string): bigint | null => {
    const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(v.trim());
    return m ? BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? "").padEnd(6, "0")) : null;
  };
  const c = micro(credits);
  const p = micro(pricePerCreditMinor);
  if (c === null || p === null) return null;
  const product = c * p; // in 10^-12 minor units
  const unit = 1_000_000_000_000n;
  return product % unit === 0n ? Number(product / unit) : null;
}

/** Why an auto top-up's charge failed, in words for the codes a card gives; else Stripe's own message. */
export function failureReason(code: string | null, message: string | null, t: Translate): string {
  if (code === "card_declined" || code === "authentication_required" || code === "expired_card" || code === "insufficient_funds") return t(`billing.autoTopup.failure.${code}`);
  return message ?? code ?? "";
}

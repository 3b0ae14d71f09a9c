import { paymentSettings, type PaymentSettings } from "../env";
import { invalidInput, notFound } from "../errors";
import { credits as toDecimal, creditsToSql, isCreditString, type CreditAmount } from "../money";

/**
 * What an operator sells credits for (docs/billing.md, Buying credits), checked once per read of the
 * environment: the price of a credit in the currency's minor unit, the bounds of a purchase and the
 * packs (canonical decimal strings). Amounts of money are integers of minor units (Stripe's `unit_amount`); a purchase whose
 * price is not a whole number of them is refused rather than rounded.
 */
export type PaymentConfig = PaymentSettings;

/** The answer to every payment operation while STRIPE_SECRET_KEY is unset (404: the operation is not offered here). */
export function paymentsNotConfigured() {
  return notFound("Payments are not configured on this server (STRIPE_SECRET_KEY is unset): credits are granted by the operator (`credits grant`)");
}

/** The configuration, or undefined when payments are off; an inconsistent configuration throws, naming the variable. */
export function paymentConfig(): PaymentConfig | undefined {
  const settings = paymentSettings();
  if (!settings) return undefined;
  const problems: string[] = [];
  const price = toDecimal(settings.priceMinor);
  if (price.lte(0)) problems.push("CREDIT_PRICE_MINOR must be above 0");
  const min = toDecimal(settings.minCredits);
  const max = toDecimal(settings.maxCredits);
  if (min.lte(0)) problems.push("CREDIT_PURCHASE_MIN must be above 0");
  if (max.lt(min)) problems.push("CREDIT_PURCHASE_MAX must be at least CREDIT_PURCHASE_MIN");
  const packs: string[] = [];
  for (const pack of settings.packs) {
    if (!isCreditString(pack) || toDecimal(pack).lte(0)) {
      problems.push(`CREDIT_PACKS: "${pack}" is not a positive number of credits (at most 6 decimals)`);
      continue;
    }
    const credits = toDecimal(pack);
    if (credits.lt(min) || credits.gt(max)) problems.push(`CREDIT_PACKS: ${pack} lies outside CREDIT_PURCHASE_MIN..CREDIT_PURCHASE_MAX (${settings.minCredits}..${settings.maxCredits})`);
    else if (!credits.times(price).isInteger()) problems.push(`CREDIT_PACKS: ${pack} credits at ${settings.priceMinor} minor units each is not a whole amount of minor units`);
    packs.push(creditsToSql(credits));
  }
  if (problems.length > 0) throw new Error(`Invalid environment:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  return { ...settings, packs };
}

/** The configuration, or the "not configured" answer. */
export function paymentConfigOrThrow(): PaymentConfig {
  const config = paymentConfig();
  if (!config) throw paymentsNotConfigured();
  return config;
}

export interface PricedPurchase {
  /** Canonical decimal string of the credits bought. */
  credits: string;
  amountMinor: number;
  currency: string;
}

/** The price of `credits` (a number of credits, or a pack), within the bounds, in whole minor units. */
export function pricePurchase(config: PaymentConfig, input: { credits?: string; pack?: string }): PricedPurchase {
  if ((input.credits === undefined) === (input.pack === undefined)) throw invalidInput("Give either credits or pack");
  let amount: CreditAmount;
  if (input.pack !== undefined) {
    const pack = isCreditString(input.pack) ? creditsToSql(input.pack) : undefined;
    if (pack === undefined || !config.packs.includes(pack)) {
      throw invalidInput(config.packs.length === 0 ? "No packs are offered here: give credits" : `Unknown pack "${input.pack}": the packs are ${config.packs.join(", ")} credits`);
    }
    amount = toDecimal(pack);
  } else {
    if (!isCreditString(input.credits!) || toDecimal(input.credits!).lte(0)) throw invalidInput(`credits must be a positive number with at most 6 decimals, got "${input.credits}"`);
    amount = toDecimal(input.credits!);
  }
  const min = toDecimal(config.minCredits);
  const max = toDecimal(config.maxCredits);
  if (amount.lt(min) || amount.gt(max)) throw invalidInput(`A purchase buys between ${min.toFixed()} and ${max.toFixed()} credits, got ${amount.toFixed()}`);
  const minor = amount.times(config.priceMinor);
  if (!minor.isInteger()) {
    throw invalidInput(`${amount.toFixed()} credits at ${config.priceMinor} minor units each costs ${minor.toFixed()} minor units: choose an amount that costs a whole number of them`);
  }
  if (!minor.lte(Number.MAX_SAFE_INTEGER)) throw invalidInput("That purchase is too large");
  return { credits: creditsToSql(amount), amountMinor: minor.toNumber(), currency: config.currency };
}

/** Why a payment may not be granted: refused, with what to tell the operator. */
export interface PriceRefusal {
  outcome: "refused_currency_mismatch" | "refused_price_mismatch";
  detail: string;
}

/**
 * Whether `credits` for `amountMinor` of `currency` is a purchase at this server's price, exactly:
 * the currency is BILLING_CURRENCY and credits × CREDIT_PRICE_MINOR is the amount paid. Used where
 * Tollgate has no payment of its own to compare with (the event or Stripe's metadata names the
 * credits); a recorded payment is compared with its own amount, the price when it was recorded.
 */
export function priceRefusal(config: PaymentConfig, paid: { credits: string; amountMinor: number; currency: string }): PriceRefusal | undefined {
  if (paid.currency !== config.currency) {
    return { outcome: "refused_currency_mismatch", detail: `paid ${paid.amountMinor} ${paid.currency || "(no currency)"}: this server sells credits in ${config.currency}` };
  }
  const cost = toDecimal(paid.credits).times(config.priceMinor);
  if (cost.eq(paid.amountMinor)) return undefined;
  return {
    outcome: "refused_price_mismatch",
    detail: `${toDecimal(paid.credits).toFixed()} credits at ${config.priceMinor} minor units each cost ${cost.toFixed()} ${config.currency}, but ${paid.amountMinor} was paid`,
  };
}

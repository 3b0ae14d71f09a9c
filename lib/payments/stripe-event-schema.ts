import { z } from "zod";

/**
 * The Stripe events Tollgate acts on, as zod schemas of just the fields it reads (docs/billing.md,
 * Buying credits). A signed delivery is parsed here before anything else reads it: one that is not
 * an event, or an event of a handled type whose object lacks a field or holds one of the wrong
 * shape, is refused (400) naming the field, instead of failing later in a property read or a
 * database constraint. Types Tollgate does not handle are parsed as the envelope alone.
 */

/** Text as Stripe writes it: PostgreSQL's text refuses NUL, so it is refused here. */
const text = z
  .string()
  .max(5000)
  .refine((s) => !s.includes("\u0000"), "must not contain NUL");
/** A Stripe object id (`evt_…`, `pi_…`, `cs_test_…`, `acct_…`). */
const stripeId = z.string().regex(/^[A-Za-z0-9_]{1,255}$/, "is not a Stripe id");
/** An id, or the object it names when expanded. */
const ref = z
  .union([stripeId, z.object({ id: stripeId })])
  .nullish()
  .transform((v) => (v == null ? null : typeof v === "string" ? v : v.id));
const currency = z.string().regex(/^[a-z]{3}$/, "is not a lowercase ISO 4217 code");
/** Money in the currency's minor unit: a whole number, as Stripe counts it. */
const minor = z.number().int().nonnegative();
const metadata = z
  .record(z.string(), text)
  .nullish()
  .transform((v) => v ?? {});

const SessionSchema = z.object({
  id: stripeId,
  mode: text,
  payment_status: text.nullish(),
  amount_total: minor.nullish(),
  currency: currency.nullish(),
  metadata,
  payment_intent: ref,
  customer: ref,
  setup_intent: ref,
});

const PaymentIntentSchema = z.object({
  id: stripeId,
  amount_received: minor,
  currency,
  metadata,
  latest_charge: ref,
  last_payment_error: z.object({ code: text.nullish(), message: text.nullish() }).nullish(),
});

/** A refund, as events carry it and as Stripe lists a charge's. A refund moves money: at least one minor unit. */
export const RefundSchema = z.object({
  id: stripeId,
  status: text.nullish(),
  amount: minor.positive(),
  currency,
  payment_intent: ref,
  charge: ref,
  failure_reason: text.nullish(),
});

const ChargeSchema = z.object({ id: stripeId, payment_intent: ref });

const DisputeSchema = z.object({
  id: stripeId,
  amount: minor.positive(),
  currency,
  reason: text,
  status: text,
  payment_intent: ref,
  charge: ref,
});

const envelope = {
  id: z.string().regex(/^evt_[A-Za-z0-9_]{1,250}$/, "is not a Stripe event id"),
  livemode: z.boolean(),
  /** Set on events of a connected account (Stripe Connect); absent on the account's own. */
  account: stripeId.nullish().transform((v) => v ?? null),
};

const handled = <const T extends readonly [string, ...string[]], O extends z.ZodType>(types: T, object: O) =>
  z.object({ ...envelope, type: z.enum(types), data: z.object({ object }) });

export const sessionEventTypes = ["checkout.session.completed", "checkout.session.async_payment_succeeded", "checkout.session.expired", "checkout.session.async_payment_failed"] as const;
const paymentIntentEventTypes = ["payment_intent.succeeded", "payment_intent.payment_failed"] as const;
const refundEventTypes = ["refund.created", "refund.updated", "refund.failed"] as const;
const disputeEventTypes = ["charge.dispute.created", "charge.dispute.closed"] as const;

const HandledEventSchema = z.discriminatedUnion("type", [
  handled(sessionEventTypes, SessionSchema),
  handled(paymentIntentEventTypes, PaymentIntentSchema),
  handled(refundEventTypes, RefundSchema),
  handled(["charge.refunded"], ChargeSchema),
  handled(disputeEventTypes, DisputeSchema),
]);

const handledTypes: ReadonlySet<string> = new Set(HandledEventSchema.options.flatMap((o) => o.shape.type.options));

const EnvelopeSchema = z.object({
  ...envelope,
  type: z.string().regex(/^[a-z0-9_.]{1,255}$/, "is not a Stripe event type"),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

export type Refund = z.infer<typeof RefundSchema>;
export type Session = z.infer<typeof SessionSchema>;
/** An event of a type Tollgate acts on, its object parsed. */
export type HandledEvent = z.infer<typeof HandledEventSchema>;
/** An event of another type: only the envelope is read (it is recorded and answered `ignored_type`). */
export type OtherEvent = Omit<z.infer<typeof EnvelopeSchema>, "data">;
export type StripeEventIn = { handled: true; event: HandledEvent } | { handled: false; event: OtherEvent };

const firstIssue = (error: z.ZodError) => {
  const issue = error.issues[0];
  return `${issue.path.length > 0 ? issue.path.join(".") : "the body"}: ${issue.message}`;
};

/** Parses a verified delivery's JSON: the event, or why it is not a Stripe event Tollgate can use. */
export function parseStripeEvent(raw: unknown): StripeEventIn | { unusable: string } {
  const env = EnvelopeSchema.safeParse(raw);
  if (!env.success) return { unusable: `not a Stripe event (${firstIssue(env.error)})` };
  const { id, type, livemode, account } = env.data;
  if (!handledTypes.has(type)) return { handled: false, event: { id, type, livemode, account } };
  const parsed = HandledEventSchema.safeParse(raw);
  if (!parsed.success) return { unusable: `a ${type} event Tollgate cannot use (${firstIssue(parsed.error)})` };
  return { handled: true, event: parsed.data };
}

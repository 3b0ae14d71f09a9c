import type Stripe from "stripe";
import { DomainError } from "../errors";
import { lazySdk } from "../lazy-sdk";
import type { PaymentConfig } from "./payment-config";

/** The official SDK, loaded when payments first need it (lib/lazy-sdk.ts). */
export const stripeSdk = lazySdk(() => import("stripe").then((module) => module.default));

const clients = new Map<string, Stripe>();

/**
 * The official SDK, one client per configuration (key, STRIPE_API_URL, timeout). STRIPE_API_URL
 * points it at another host, e.g. the tests' local stand-in (lib/testing/fake-stripe.ts). Requests
 * give up after STRIPE_TIMEOUT_MS; the SDK retries a failed connection once with the same
 * idempotency key, so a retry never creates a second object.
 */
export async function stripeClient(config: PaymentConfig): Promise<Stripe> {
  const key = JSON.stringify([config.secretKey, config.api ?? null, config.timeoutMs]);
  let client = clients.get(key);
  if (!client) {
    const Sdk = await stripeSdk();
    client = clients.get(key) ?? new Sdk(config.secretKey, {
      ...(config.api ? { host: config.api.host, port: config.api.port, protocol: config.api.protocol } : {}),
      timeout: config.timeoutMs,
      maxNetworkRetries: 1,
      telemetry: false,
      appInfo: { name: "Tollgate" },
    });
    clients.set(key, client);
  }
  return client;
}

/**
 * A failed request to Stripe as the domain says it: unreachable or too slow (502/504 for the
 * client), or refused by Stripe (502, with Stripe's message), followed by `then` (what it means for
 * the caller). Nothing else is taken from the error.
 */
export function stripeFailure(err: unknown, what: string, config: PaymentConfig, then = ""): DomainError {
  const tail = then ? `: ${then}` : "";
  if (isStripeError(err, "StripeConnectionError")) {
    return /timeout/i.test(err.message)
      ? new DomainError("upstream_timeout", `Stripe did not answer within ${config.timeoutMs / 1000} s (${what})${tail}`)
      : new DomainError("upstream_unavailable", `Stripe could not be reached (${what})${tail}`);
  }
  if (err instanceof DomainError) return err;
  const message = isStripeError(err, "StripeError") ? `Stripe refused the request (${what}): ${err.message}` : `Stripe failed (${what}): ${(err as Error).message}`;
  return new DomainError("upstream_unavailable", `${message}${then ? `; ${then}` : ""}`);
}

type StripeErrorClass = "StripeError" | "StripeConnectionError" | "StripeInvalidRequestError" | "StripeCardError" | "StripeSignatureVerificationError";

/** Whether `err` is the SDK's error of that class; an error can be one only once the SDK has loaded. */
export function isStripeError<K extends StripeErrorClass>(err: unknown, name: K): err is InstanceType<(typeof Stripe.errors)[K]> {
  const errors = stripeSdk.loaded()?.errors;
  return errors !== undefined && err instanceof errors[name];
}

export type { Stripe };

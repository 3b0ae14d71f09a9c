import type { PaymentConfig } from "./payment-config";
import { stripeClient, stripeFailure } from "./stripe-client";

const accounts = new Map<string, Promise<string>>();

/**
 * The server's own Stripe account id (`GET /v1/account`), read once per key and kept for the
 * process's life: an event naming another account (`account`, which Stripe sets on events of
 * connected accounts) is refused. A failed read is not kept, so the next event asks again.
 */
export async function ownStripeAccountId(config: PaymentConfig): Promise<string> {
  const key = JSON.stringify([config.secretKey, config.api ?? null]);
  let read = accounts.get(key);
  if (!read) {
    read = stripeClient(config)
      .then((stripe) => stripe.accounts.retrieveCurrent())
      .then((account) => account.id);
    accounts.set(key, read);
    read.catch(() => accounts.delete(key));
  }
  try {
    return await read;
  } catch (err) {
    throw stripeFailure(err, "reading the server's Stripe account", config, "the event is answered with an error so that Stripe delivers it again");
  }
}

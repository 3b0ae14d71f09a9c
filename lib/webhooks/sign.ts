import { Webhook } from "standardwebhooks";

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Standard Webhooks headers for one send: `webhook-signature` is `v1,` + base64 of
 * HMAC-SHA256(secret bytes, `${id}.${timestamp}.${body}`), made by the `standardwebhooks`
 * package, which receivers can verify with the same package.
 */
export function signDelivery(secret: string, id: string, at: Date, body: string): SignedHeaders {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}

import { env } from "../env";
import { invalidInput } from "../errors";
import { logger } from "../log";
import { assertPublicHost, PrivateAddressError } from "../providers/ssrf-guard";

const MAX_URL_LENGTH = 2048;

/** The operator let every endpoint reach private networks (WEBHOOK_ALLOW_PRIVATE_NETWORK=true). */
export function privateWebhooksAllowed(): boolean {
  return env().WEBHOOK_ALLOW_PRIVATE_NETWORK === "true";
}

/**
 * A webhook URL an endpoint may be registered with: http(s), and unless the operator allowed
 * private networks for it, a host that resolves only to public addresses (the providers' SSRF
 * guard). Sending checks again, inside the socket's DNS lookup (lib/webhooks/send.ts).
 */
export async function checkWebhookUrl(raw: string, allowPrivateNetwork: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidInput(`url must be an absolute http(s) URL (got ${JSON.stringify(raw.slice(0, 100))})`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalidInput("url must use https (or http)");
  if (raw.length > MAX_URL_LENGTH) throw invalidInput(`url must be at most ${MAX_URL_LENGTH} characters`);
  if (url.username || url.password) throw invalidInput("url must not carry credentials; verify deliveries by their signature instead");
  if (allowPrivateNetwork) return url;
  try {
    await assertPublicHost(url);
  } catch (err) {
    if (err instanceof PrivateAddressError && err.hostname === undefined) {
      throw invalidInput(`url's host ${url.hostname} is a non-public address (${err.range}); only the operator may allow private networks (CLI --allow-private-network)`);
    }
    // A name that resolves to a private address and a name that does not resolve get one answer:
    // telling them apart would let any owner map our internal DNS. The log keeps which it was.
    logger.info({ host: url.hostname, refused: err instanceof PrivateAddressError ? err.detail : ((err as NodeJS.ErrnoException).code ?? (err as Error).message) }, "webhook url refused");
    throw invalidInput(`url's host ${url.hostname} does not resolve to a public address; only the operator may allow private networks (CLI --allow-private-network)`);
  }
  return url;
}

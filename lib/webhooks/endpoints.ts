import { and, eq, isNull, sql } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints } from "../db/schema";
import type { Db } from "../db/types";
import { invalidInput, notFound } from "../errors";
import { newId } from "../ids";
import { rows } from "../db/row-sql";
import { requireAccount } from "../accounts/require-account";
import { type Actor, SYSTEM, recordActivity } from "../accounts/activity";
import { webhookEventTypes, type WebhookEventType } from "../alerts/notify-sql";
import { encryptWebhookSecret, generateWebhookSecret, webhookKey } from "./secret";
import { checkWebhookUrl, privateWebhooksAllowed } from "./url";

/** An account may register this many live endpoints. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 10;

export interface WebhookEndpointItem {
  id: string;
  url: string;
  /** Event types delivered; empty = every type. */
  events: WebhookEventType[];
  allow_private_network: boolean;
  created_at: string;
  /** Deliveries still to be sent (or retried), and those that gave up. */
  pending_count: number;
  failed_count: number;
  last_attempt_at: string | null;
  last_status_code: number | null;
}

export interface CreatedWebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  allow_private_network: boolean;
  created_at: string;
  /** The signing secret (`whsec_…`): returned only here. */
  secret: string;
}

export function normaliseEvents(events: readonly string[]): WebhookEventType[] {
  const unknown = events.filter((e) => !(webhookEventTypes as readonly string[]).includes(e));
  if (unknown.length > 0) throw invalidInput(`unknown event type ${unknown.join(", ")}; known: ${webhookEventTypes.join(", ")}`);
  return [...new Set(events as WebhookEventType[])].sort();
}

/**
 * Registers an endpoint and returns its signing secret, which is stored only encrypted.
 * `allowPrivateNetwork` lets the URL reach private and loopback addresses: the operator's choice
 * (CLI), never offered to account users over the API (WEBHOOK_ALLOW_PRIVATE_NETWORK=true allows
 * it for every endpoint, for deployments whose receivers are internal).
 */
export async function createWebhookEndpoint(
  db: Db,
  input: { accountId: string; url: string; events?: readonly string[]; allowPrivateNetwork?: boolean; actor?: Actor },
): Promise<CreatedWebhookEndpoint> {
  const events = normaliseEvents(input.events ?? []);
  const allowPrivateNetwork = input.allowPrivateNetwork === true;
  const url = (await checkWebhookUrl(input.url, allowPrivateNetwork || privateWebhooksAllowed())).href;
  await requireAccount(db, input.accountId);
  const id = newId("whe");
  const secret = generateWebhookSecret();
  const secretCiphertext = encryptWebhookSecret(await webhookKey(db), id, secret);
  const created = await db.transaction(async (tx) => {
    // Serialises creations of one account, so two at once cannot both pass the limit.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints'), hashtext(${input.accountId}))`);
    const [{ n }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.accountId, input.accountId), isNull(webhookEndpoints.disabledAt)));
    if (n >= MAX_ENDPOINTS_PER_ACCOUNT) throw invalidInput(`an account may have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; remove one first`);
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({ id, accountId: input.accountId, url, events, secretCiphertext, allowPrivateNetwork })
      .returning({ createdAt: webhookEndpoints.createdAt });
    await recordActivity(tx as unknown as Db, input.accountId, input.actor ?? SYSTEM, {
      action: "webhook.created",
      objectType: "webhook_endpoint",
      objectId: id,
      after: { url, events, allow_private_network: allowPrivateNetwork },
    });
    return row;
  });
  return { id, url, events, allow_private_network: allowPrivateNetwork, created_at: created.createdAt.toISOString(), secret };
}

/** The account's live endpoints, newest first, with a summary of their deliveries. */
export async function listWebhookEndpoints(db: Db, input: { accountId: string }): Promise<WebhookEndpointItem[]> {
  const result = await db.execute(sql`
    SELECT e.id, e.url, e.events, e.allow_private_network, e.created_at,
           coalesce(s.pending, 0)::int AS pending_count, coalesce(s.failed, 0)::int AS failed_count,
           a.attempted_at AS last_attempt_at, a.status_code AS last_status_code
      FROM webhook_endpoints e
      LEFT JOIN LATERAL (
        SELECT count(*) FILTER (WHERE d.status = 'pending') AS pending, count(*) FILTER (WHERE d.status = 'failed') AS failed
          FROM webhook_deliveries d WHERE d.endpoint_id = e.id
      ) s ON true
      -- The last answer among its 20 latest deliveries (bounded, whatever the endpoint's history).
      LEFT JOIN LATERAL (
        SELECT wa.attempted_at, wa.status_code
          FROM (SELECT d.id FROM webhook_deliveries d WHERE d.endpoint_id = e.id ORDER BY d.created_at DESC LIMIT 20) d
          CROSS JOIN LATERAL (
            SELECT x.id, x.attempted_at, x.status_code FROM webhook_attempts x
             WHERE x.delivery_id = d.id ORDER BY x.attempted_at DESC, x.id DESC LIMIT 1
          ) wa
         ORDER BY wa.attempted_at DESC, wa.id DESC LIMIT 1
      ) a ON true
     WHERE e.account_id = ${input.accountId} AND e.disabled_at IS NULL
     ORDER BY e.created_at DESC, e.id DESC`);
  return rows<{
    id: string;
    url: string;
    events: WebhookEventType[];
    allow_private_network: boolean;
    created_at: Date | string;
    pending_count: number;
    failed_count: number;
    last_attempt_at: Date | string | null;
    last_status_code: number | null;
  }>(result).map((r) => ({
    ...r,
    created_at: new Date(r.created_at).toISOString(),
    last_attempt_at: r.last_attempt_at === null ? null : new Date(r.last_attempt_at).toISOString(),
  }));
}

/**
 * Removes an endpoint: it receives nothing more, and its deliveries still pending give up (the
 * log stays readable). Another account's endpoint is not found. Removing twice is not found.
 */
export async function removeWebhookEndpoint(db: Db, input: { id: string; accountId?: string; actor?: Actor }): Promise<{ id: string; removed: true; cancelled_deliveries: number }> {
  return db.transaction(async (tx) => {
    const [removed] = await tx
      .update(webhookEndpoints)
      .set({ disabledAt: sql`now()` })
      .where(and(eq(webhookEndpoints.id, input.id), isNull(webhookEndpoints.disabledAt), input.accountId ? eq(webhookEndpoints.accountId, input.accountId) : undefined))
      .returning({ id: webhookEndpoints.id, accountId: webhookEndpoints.accountId, url: webhookEndpoints.url, events: webhookEndpoints.events });
    if (!removed) throw notFound(`Webhook endpoint ${input.id} not found`);
    await recordActivity(tx as unknown as Db, removed.accountId, input.actor ?? SYSTEM, {
      action: "webhook.removed",
      objectType: "webhook_endpoint",
      objectId: removed.id,
      before: { url: removed.url, events: removed.events },
    });
    const cancelled = await tx
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: "endpoint removed" })
      .where(and(eq(webhookDeliveries.endpointId, input.id), eq(webhookDeliveries.status, "pending")))
      .returning({ id: webhookDeliveries.id });
    return { id: removed.id, removed: true as const, cancelled_deliveries: cancelled.length };
  });
}

/** A live endpoint of the account, or not found (for the routes that take an endpoint id). */
export async function getWebhookEndpointOrThrow(db: Db, input: { id: string; accountId: string }) {
  const [row] = await db
    .select({ id: webhookEndpoints.id, url: webhookEndpoints.url })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, input.id), eq(webhookEndpoints.accountId, input.accountId)));
  if (!row) throw notFound(`Webhook endpoint ${input.id} not found`);
  return row;
}

import { sql } from "drizzle-orm";
import type { Clock } from "../clock";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { DomainError, notFound } from "../errors";
import { webhookDeliveryStatuses } from "../db/schema";
import { WEBHOOKS_CHANNEL } from "../alerts/notify-sql";
import { getWebhookEndpointOrThrow } from "./endpoints";

export type WebhookDeliveryStatus = (typeof webhookDeliveryStatuses)[number];

export interface WebhookAttemptItem {
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
}

export interface WebhookDeliveryItem {
  id: string;
  endpoint_id: string;
  notification_id: string | null;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  /** The body sent (Standard Webhooks: type, timestamp, data). */
  payload: Record<string, unknown>;
  /** Newest first. */
  attempt_log: WebhookAttemptItem[];
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  notification_id: string | null;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: Date | string;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date | string;
  delivered_at: Date | string | null;
  payload: Record<string, unknown>;
  attempt_log: { attempted_at: string; status_code: number | null; error: string | null; duration_ms: number | null }[];
}

function item(r: DeliveryRow): WebhookDeliveryItem {
  return {
    ...r,
    next_attempt_at: r.status === "pending" ? iso(r.next_attempt_at) : null,
    created_at: iso(r.created_at)!,
    delivered_at: iso(r.delivered_at),
    attempt_log: r.attempt_log.map((a) => ({ ...a, attempted_at: iso(a.attempted_at)! })),
  };
}

const SELECT_DELIVERY = sql`
  SELECT d.id, d.endpoint_id, d.notification_id, d.event_type, d.status, d.attempts, d.next_attempt_at,
         d.last_status_code, d.last_error, d.created_at, d.delivered_at, d.payload,
         coalesce((SELECT jsonb_agg(jsonb_build_object('attempted_at', a.attempted_at, 'status_code', a.status_code,
                                                       'error', a.error, 'duration_ms', a.duration_ms)
                                    ORDER BY a.attempted_at DESC, a.id DESC)
                     FROM (SELECT * FROM webhook_attempts wa WHERE wa.delivery_id = d.id ORDER BY wa.attempted_at DESC, wa.id DESC LIMIT 20) a),
                  '[]'::jsonb) AS attempt_log
    FROM webhook_deliveries d`;

/** An endpoint's deliveries, newest first, each with its last 20 attempts (the delivery log). */
export async function listWebhookDeliveries(db: Db, input: { accountId: string; endpointId: string; limit?: number }): Promise<WebhookDeliveryItem[]> {
  await getWebhookEndpointOrThrow(db, { id: input.endpointId, accountId: input.accountId });
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const result = await db.execute(sql`${SELECT_DELIVERY}
    WHERE d.endpoint_id = ${input.endpointId} AND d.account_id = ${input.accountId}
    ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit}::int`);
  return rows<DeliveryRow>(result).map(item);
}

/**
 * Sends a delivery again (same webhook-id and body, signed anew): it becomes pending and due now,
 * and the workers are woken. Past its retry window it gets this one attempt. Another account's
 * delivery is not found; one whose endpoint was removed cannot be resent.
 */
export async function resendWebhookDelivery(db: Db, input: { id: string; accountId?: string; clock?: Clock }): Promise<WebhookDeliveryItem> {
  const now = input.clock ? input.clock.now().toISOString() : null;
  const result = await db.execute(sql`
    WITH target AS (
      SELECT d.id, e.disabled_at IS NOT NULL AS removed
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.id = ${input.id} AND (${input.accountId ?? null}::text IS NULL OR d.account_id = ${input.accountId ?? null}::text)
    ), upd AS (
      UPDATE webhook_deliveries d
         SET status = 'pending', next_attempt_at = coalesce(${now}::timestamptz, now()), delivered_at = NULL
        FROM target WHERE d.id = target.id AND NOT target.removed
      RETURNING d.id, pg_notify(${WEBHOOKS_CHANNEL}, '')::text AS woken
    )
    SELECT (SELECT removed FROM target) AS removed, (SELECT count(*)::int FROM upd) AS updated`);
  const [r] = rows<{ removed: boolean | null; updated: number }>(result);
  if (r.removed === null) throw notFound(`Webhook delivery ${input.id} not found`);
  if (r.removed) throw new DomainError("conflict", `Webhook delivery ${input.id} belongs to a removed endpoint and cannot be resent`);
  const [row] = rows<DeliveryRow>(await db.execute(sql`${SELECT_DELIVERY} WHERE d.id = ${input.id}`));
  return item(row);
}

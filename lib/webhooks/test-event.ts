import { sql } from "drizzle-orm";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { notFound } from "../errors";
import { eventTypes, WEBHOOKS_CHANNEL, webhookBodySql } from "../alerts/notify-sql";

/**
 * Queues a `webhook.test` delivery to one endpoint (whatever its event filter), so an owner can
 * check the receiver and its signature check. Its notification is recorded already read: a test
 * is listed, but raises no banner. One statement; the workers are woken at commit.
 */
export async function sendTestEvent(db: Db, input: { accountId: string; endpointId: string }): Promise<{ delivery_id: string; notification_id: string }> {
  const result = await db.execute(sql`
    WITH e AS (
      SELECT id, account_id FROM webhook_endpoints
       WHERE id = ${input.endpointId} AND account_id = ${input.accountId} AND disabled_at IS NULL
    ), n AS (
      INSERT INTO notifications (id, account_id, kind, claim_key, payload, read_at)
      SELECT 'ntf_' || replace(gen_random_uuid()::text, '-', ''), e.account_id, 'webhook_test',
             'webhook_test:' || gen_random_uuid()::text,
             jsonb_build_object('endpoint_id', e.id, 'message', 'A test event: your endpoint receives and verifies Tollgate webhooks.'), now()
        FROM e
      RETURNING id, account_id, payload, created_at
    ), d AS (
      INSERT INTO webhook_deliveries (id, endpoint_id, account_id, notification_id, event_type, payload)
      SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, n.account_id, n.id, ${eventTypes.webhook_test}, ${sql.raw(webhookBodySql(`'${eventTypes.webhook_test}'`))}
        FROM n CROSS JOIN e
      RETURNING id, notification_id, pg_notify(${WEBHOOKS_CHANNEL}, '')::text AS woken
    )
    SELECT id AS delivery_id, notification_id FROM d`);
  const [row] = rows<{ delivery_id: string; notification_id: string }>(result);
  if (!row) throw notFound(`Webhook endpoint ${input.endpointId} not found`);
  return row;
}

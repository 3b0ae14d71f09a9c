import { sql } from "drizzle-orm";
import type { NotificationKind } from "../db/schema";
import type { Db } from "../db/types";
import { rows } from "../db/row-sql";
import { eventTypes, webhookEventTypes, type WebhookEventType } from "./event-types";

/** The channel a statement that queued webhook deliveries announces on (delivery workers listen). */
export const WEBHOOKS_CHANNEL = "tollgate_webhooks";

export { eventTypes, webhookEventTypes, type WebhookEventType };

const eventTypeCase = `CASE n.kind ${Object.entries(eventTypes)
  .map(([kind, type]) => `WHEN '${kind}' THEN '${type}'`)
  .join(" ")} END`;

/**
 * SQL of a delivery's body, the Standard Webhooks shape {type, timestamp, data}, for the
 * notification row aliased `n` (id, account_id, payload, created_at) and an event type expression.
 */
export function webhookBodySql(eventType: string): string {
  return `jsonb_build_object(
           'type', ${eventType},
           'timestamp', to_char(n.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
           'data', n.payload || jsonb_build_object('notification_id', n.id, 'account_id', n.account_id))`;
}

/**
 * CTEs to embed in a larger `WITH` statement, after a CTE named `source` with columns
 * (account_id text, kind text, claim_key text, payload jsonb):
 * - `ntf` inserts each notification whose claim_key is new (a claim key already taken is skipped,
 *   so a threshold fires once however many statements cross it) and returns it;
 * - `whd` queues one webhook delivery (the outbox row, `msg_…`) per new notification and live
 *   endpoint of its account subscribed to its event type (no events listed = every type), with the
 *   Standard Webhooks body {type, timestamp, data}. Its RETURNING calls pg_notify, so each row
 *   wakes the delivery workers at commit (PostgreSQL folds identical notifications of one
 *   transaction into one) whether or not the outer query reads `whd`.
 * Data-modifying CTEs always run to completion; the outer statement may ignore both.
 */
export function notifyCtes(source: string): string {
  if (!/^[a-z_][a-z0-9_]*$/i.test(source)) throw new Error(`notifyCtes: bad CTE name ${source}`);
  return `ntf AS (
  INSERT INTO notifications (id, account_id, kind, claim_key, payload)
  SELECT 'ntf_' || replace(gen_random_uuid()::text, '-', ''), s.account_id, s.kind, s.claim_key, s.payload
  FROM ${source} s
  ON CONFLICT (claim_key) DO NOTHING
  RETURNING id, account_id, kind, claim_key, payload, created_at
),
whd AS (
  INSERT INTO webhook_deliveries (id, endpoint_id, account_id, notification_id, event_type, payload)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), e.id, n.account_id, n.id, t.event_type,
         ${webhookBodySql("t.event_type")}
  FROM ntf n
  CROSS JOIN LATERAL (SELECT ${eventTypeCase} AS event_type) t
  JOIN webhook_endpoints e
    ON e.account_id = n.account_id AND e.disabled_at IS NULL
   AND (cardinality(e.events) = 0 OR t.event_type = ANY (e.events))
  RETURNING id, notification_id, pg_notify('${WEBHOOKS_CHANNEL}', '')::text AS woken
)`;
}

export interface NotifyInput {
  accountId: string;
  kind: NotificationKind;
  /** Unique per threshold and period, e.g. `low_balance:acc_…:<period>`; a taken key is a no-op. */
  claimKey: string;
  payload: Record<string, unknown>;
}

/**
 * Records a notification and queues its webhook deliveries in one statement (the same CTEs the
 * settlement statements embed). Returns the notification id when the claim key was new.
 */
export async function notify(db: Db, input: NotifyInput): Promise<{ created: boolean; notificationId?: string; deliveries: number }> {
  const result = await db.execute(sql`
    WITH ntf_source AS (
      SELECT ${input.accountId}::text AS account_id, ${input.kind}::text AS kind,
             ${input.claimKey}::text AS claim_key, ${JSON.stringify(input.payload)}::jsonb AS payload
    ),
    ${sql.raw(notifyCtes("ntf_source"))}
    SELECT (SELECT id FROM ntf) AS notification_id, (SELECT count(*)::int FROM whd) AS deliveries`);
  const [row] = rows<{ notification_id: string | null; deliveries: number }>(result);
  return { created: row.notification_id !== null, notificationId: row.notification_id ?? undefined, deliveries: row.deliveries };
}

import { z } from "@hono/zod-openapi";
import { webhookEventTypes } from "../../alerts/notify-sql";
import { webhookDeliveryStatuses } from "../../db/schema";

/** The webhook operations' shapes, written once: routes validate and describe with them, the dashboard types with them. */
const EventType = z.enum(webhookEventTypes as [string, ...string[]]);

export const WebhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(EventType).openapi({ description: "Event types delivered; empty: every type" }),
    allow_private_network: z.boolean().openapi({ description: "Set by the operator (CLI) only: the URL may reach private addresses" }),
    created_at: z.string(),
    pending_count: z.number().int().openapi({ description: "Deliveries waiting to be sent or retried" }),
    failed_count: z.number().int().openapi({ description: "Deliveries that gave up (24 h of retries, or the endpoint was removed)" }),
    last_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable().openapi({ description: "The receiver's HTTP status at the last attempt; null when none came" }),
  })
  .openapi("WebhookEndpoint");

export const CreateWebhookBodySchema = z
  .object({
    url: z.string().min(1).max(2048).openapi({ description: "https (or http) URL; hosts on private or loopback networks are refused" }),
    events: z.array(EventType).max(20).optional().openapi({ description: "Event types to deliver; absent or empty: every type" }),
  })
  .openapi("CreateWebhookRequest");

export const CreatedWebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(EventType),
    allow_private_network: z.boolean(),
    created_at: z.string(),
    secret: z.string().openapi({ description: "The signing secret (`whsec_…`): returned only in this response; store it now" }),
  })
  .openapi("CreatedWebhook");

export const RemovedWebhookSchema = z
  .object({ id: z.string(), removed: z.literal(true), cancelled_deliveries: z.number().int() })
  .openapi("RemovedWebhook");

export const WebhookAttemptSchema = z
  .object({
    attempted_at: z.string(),
    status_code: z.number().int().nullable().openapi({ description: "The receiver's HTTP status; null when none came" }),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
  })
  .openapi("WebhookAttempt");

export const WebhookDeliverySchema = z
  .object({
    id: z.string().openapi({ description: "The `webhook-id` header: the same on every attempt and resend" }),
    endpoint_id: z.string(),
    notification_id: z.string().nullable(),
    event_type: EventType,
    status: z.enum(webhookDeliveryStatuses),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable().openapi({ description: "When a pending delivery is (re)tried" }),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()).openapi({ description: "The body sent: {type, timestamp, data}" }),
    attempt_log: z.array(WebhookAttemptSchema).openapi({ description: "The last 20 attempts, newest first" }),
  })
  .openapi("WebhookDelivery");

export const WebhookTestSchema = z.object({ delivery_id: z.string(), notification_id: z.string() }).openapi("WebhookTestEvent");

export const EndpointIdParam = z.object({ endpoint_id: z.string().max(100) });
export const DeliveryIdParam = z.object({ delivery_id: z.string().max(100) });

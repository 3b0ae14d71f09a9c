import { z } from "@hono/zod-openapi";
import { notificationKinds } from "../../db/schema";
import { webhookEventTypes } from "../../alerts/notify-sql";
import { PublicApiErrorSchema } from "../../http/schemas";

/** The alert and notification operations' shapes, written once: routes validate and describe with them, the dashboard types with them. */
export const ALERTS_EXTENSION = "Extension (not in the published contract): used by the dashboard's Budgets & alerts page (docs/billing.md, Alerts and webhooks).";

export const notFoundResponse = { 404: { description: "No such object in the caller's account", content: { "application/json": { schema: PublicApiErrorSchema } } } } as const;

export const AlertSettingsSchema = z
  .object({
    account_id: z.string(),
    low_balance_credits: z.number().nullable().openapi({ description: "Notify when the balance falls below this many credits; null: never" }),
    budget_percents: z.array(z.number().int()).openapi({ description: "Notify when a budget's spend reaches each of these percentages of its limit, once per period" }),
    updated_at: z.string().nullable().openapi({ description: "null until the settings were first changed (the defaults apply)" }),
  })
  .openapi("AlertSettings");

export const AlertSettingsBodySchema = z
  .object({
    low_balance_credits: z
      .union([z.number().min(0), z.string().regex(/^\d{1,14}(\.\d{1,6})?$/), z.null()])
      .optional()
      .openapi({ description: "A non-negative number of credits (at most 6 decimals); null turns the alert off; absent leaves it" }),
    budget_percents: z
      .array(z.number().int().min(1).max(100))
      .max(100)
      .optional()
      .openapi({ description: "Integers from 1 to 100 (stored sorted, each once); [] turns budget alerts off; absent leaves them" }),
  })
  .openapi("AlertSettingsRequest");

export const NotificationSchema = z
  .object({
    id: z.string(),
    kind: z.enum(notificationKinds),
    event_type: z.enum(webhookEventTypes as [string, ...string[]]),
    payload: z.record(z.string(), z.unknown()).openapi({ description: "What crossed which threshold (the webhook's `data` without the ids)" }),
    created_at: z.string(),
    read_at: z.string().nullable(),
  })
  .openapi("Notification");

export const NotificationListSchema = z
  .object({ items: z.array(NotificationSchema), unread_count: z.number().int() })
  .openapi("NotificationList");

export const NotificationListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional().openapi({ description: "At most this many (default 50)" }),
  before: z.string().datetime({ offset: true }).optional().openapi({ description: "Only notifications created before this instant (the next page: the last item's created_at)" }),
});

export const MarkReadBodySchema = z
  .object({
    notification_ids: z.array(z.string().max(100)).max(200).optional().openapi({ description: "The notifications to mark read; absent: every unread one" }),
  })
  .openapi("MarkNotificationsReadRequest");

export const MarkedReadSchema = z.object({ marked: z.number().int() }).openapi("MarkedNotificationsRead");

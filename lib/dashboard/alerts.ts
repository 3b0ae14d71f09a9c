import type { z } from "zod";
import type { AlertSettingsSchema, NotificationListSchema } from "../api/routes/alerts-schemas";
import type { CreatedWebhookSchema, WebhookDeliverySchema, WebhookEndpointSchema } from "../api/routes/webhooks-schemas";
import { apiData } from "./api-client";

/** The Budgets & alerts page's calls to `/api/v1/auth/{alerts,notifications,webhooks}` (JWT); types from the API's own schemas. */
export type AlertSettings = z.infer<typeof AlertSettingsSchema>;
export type NotificationList = z.infer<typeof NotificationListSchema>;
export type NotificationItem = NotificationList["items"][number];
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;
export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

export { webhookEventTypes } from "../alerts/event-types";

export const alertSettingsQueryKey = ["auth", "alerts"] as const;
export const notificationsQueryKey = ["auth", "notifications"] as const;
export const webhooksQueryKey = ["auth", "webhooks"] as const;
export const deliveriesQueryKey = (endpointId: string) => ["auth", "webhooks", endpointId, "deliveries"] as const;

export const fetchAlertSettings = (signal?: AbortSignal) => apiData<AlertSettings>("/auth/alerts", { signal });

export const saveAlertSettings = (body: { low_balance_credits: number | null; budget_percents: number[] }) =>
  apiData<AlertSettings>("/auth/alerts", { method: "PUT", body });

export const fetchNotifications = (limit: number, signal?: AbortSignal) => apiData<NotificationList>("/auth/notifications", { query: { limit }, signal });

export const markNotificationsRead = (ids?: string[]) =>
  apiData<{ marked: number }>("/auth/notifications/read", { method: "POST", body: ids ? { notification_ids: ids } : {} });

export const fetchWebhooks = async (signal?: AbortSignal) => (await apiData<{ items: WebhookEndpoint[] }>("/auth/webhooks", { signal })).items;

export const createWebhook = (body: { url: string; events: string[] }) => apiData<CreatedWebhook>("/auth/webhooks", { method: "POST", body });

export const removeWebhook = (id: string) => apiData<{ id: string; removed: true }>(`/auth/webhooks/${encodeURIComponent(id)}`, { method: "DELETE" });

export const sendWebhookTest = (id: string) => apiData<{ delivery_id: string }>(`/auth/webhooks/${encodeURIComponent(id)}/test`, { method: "POST" });

export const fetchDeliveries = async (endpointId: string, signal?: AbortSignal) =>
  (await apiData<{ items: WebhookDelivery[] }>(`/auth/webhooks/${encodeURIComponent(endpointId)}/deliveries`, { signal })).items;

export const resendDelivery = (id: string) => apiData<WebhookDelivery>(`/auth/webhook-deliveries/${encodeURIComponent(id)}/resend`, { method: "POST" });

"use client";

import { useId, useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import {
  createWebhook,
  deliveriesQueryKey,
  fetchWebhooks,
  removeWebhook,
  sendWebhookTest,
  webhookEventTypes,
  webhooksQueryKey,
  type CreatedWebhook,
  type WebhookEndpoint,
} from "@/lib/dashboard/alerts";
import { formatDateTime } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { DeliveryLog, statusCodeTone } from "./delivery-log";

function CreateWebhookForm({ onCreated }: { onCreated: (created: CreatedWebhook) => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const urlId = useId();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: createWebhook,
    onSuccess: (created) => {
      setUrl("");
      setEvents([]);
      onCreated(created);
      void queryClient.invalidateQueries({ queryKey: webhooksQueryKey });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (url.trim()) create.mutate({ url: url.trim(), events });
  }

  const toggle = (type: string) => setEvents((current) => (current.includes(type) ? current.filter((e) => e !== type) : [...current, type]));

  return (
    <Card className="p-5">
      <form onSubmit={submit} className="space-y-4" data-testid="webhook-create-form">
        <div>
          <FieldLabel htmlFor={urlId} hint={t("webhooks.urlHint")}>
            {t("webhooks.url")}
          </FieldLabel>
          <TextInput id={urlId} type="url" required value={url} maxLength={2048} onChange={(e) => setUrl(e.target.value)} placeholder={t("webhooks.urlPlaceholder")} />
        </div>
        <fieldset>
          <legend className="mb-1 text-xs font-medium text-zinc-600">{t("webhooks.events")}</legend>
          <div className="flex flex-wrap gap-2">
            <label className="inline-flex items-center gap-1.5 rounded-lg border border-zinc-200 px-2.5 py-1.5 text-sm text-zinc-700">
              <input type="checkbox" checked={events.length === 0} onChange={() => setEvents([])} className="accent-indigo-600" />
              {t("webhooks.allEvents")}
            </label>
            {webhookEventTypes.map((type) => (
              <label key={type} className="inline-flex items-center gap-1.5 rounded-lg border border-zinc-200 px-2.5 py-1.5 font-mono text-xs text-zinc-700">
                <input type="checkbox" checked={events.includes(type)} onChange={() => toggle(type)} className="accent-indigo-600" />
                {type}
              </label>
            ))}
          </div>
        </fieldset>
        {create.isError && <Notice tone="error">{create.error.message}</Notice>}
        <Button type="submit" variant="primary" disabled={create.isPending || !url.trim()}>
          {create.isPending ? t("webhooks.creating") : t("webhooks.create")}
        </Button>
      </form>
    </Card>
  );
}

function SecretDialog({ created, onClose }: { created: CreatedWebhook | null; onClose: () => void }) {
  const { t } = useI18n();
  return (
    <Dialog
      open={created !== null}
      onClose={onClose}
      title={t("webhooks.createdTitle")}
      description={created ? t("webhooks.createdBody", { url: created.url }) : undefined}
      closeLabel={t("common.close")}
      testId="new-webhook-dialog"
      footer={
        <Button variant="primary" onClick={onClose}>
          {t("webhooks.savedIt")}
        </Button>
      }
    >
      {created && (
        <div className="space-y-3">
          <div className="flex items-center gap-2 rounded-lg border border-zinc-200 bg-zinc-50 p-3">
            <code className="min-w-0 flex-1 break-all font-mono text-sm text-zinc-900" data-testid="new-webhook-secret">
              {created.secret}
            </code>
            <CopyButton value={created.secret} label={t("webhooks.copySecret")} showLabel />
          </div>
          <Notice tone="warn">{t("webhooks.onceWarning")}</Notice>
        </div>
      )}
    </Dialog>
  );
}

function EndpointCard({ endpoint, canEdit, onRemove }: { endpoint: WebhookEndpoint; canEdit: boolean; onRemove: () => void }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const logId = useId();
  const test = useMutation({
    mutationFn: () => sendWebhookTest(endpoint.id),
    onSuccess: () => {
      setOpen(true);
      void queryClient.invalidateQueries({ queryKey: deliveriesQueryKey(endpoint.id) });
    },
  });
  return (
    <li data-testid="webhook-endpoint">
      <Card className="p-4 sm:p-5">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0 space-y-2">
            <p className="break-all font-mono text-sm text-zinc-900" data-testid="webhook-url">
              {endpoint.url}
            </p>
            <div className="flex flex-wrap items-center gap-1.5">
              {endpoint.events.length === 0 ? <Badge tone="indigo">{t("webhooks.allEvents")}</Badge> : endpoint.events.map((e) => <Badge key={e} tone="indigo">{e}</Badge>)}
              {endpoint.pending_count > 0 && <Badge tone="amber">{t("webhooks.pending", { count: endpoint.pending_count })}</Badge>}
              {endpoint.failed_count > 0 && <Badge tone="red">{t("webhooks.failed", { count: endpoint.failed_count })}</Badge>}
            </div>
            <p className="text-xs text-zinc-500">
              {t("webhooks.lastStatus")}:{" "}
              {endpoint.last_attempt_at ? (
                <>
                  <Badge tone={statusCodeTone(endpoint.last_status_code)}>{endpoint.last_status_code ?? t("webhooks.noResponse")}</Badge>{" "}
                  <span className="tabular-nums">{formatDateTime(endpoint.last_attempt_at, tz.timeZone)}</span>
                </>
              ) : (
                t("webhooks.noAttempts")
              )}
            </p>
          </div>
          <div className="flex flex-wrap gap-2">
            <Button size="sm" onClick={() => setOpen((o) => !o)} aria-expanded={open} aria-controls={logId}>
              {open ? t("webhooks.hideLog") : t("webhooks.showLog")}
            </Button>
            {canEdit && (
              <>
                <Button size="sm" onClick={() => test.mutate()} disabled={test.isPending}>
                  {test.isPending ? t("webhooks.sendingTest") : t("webhooks.sendTest")}
                </Button>
                <Button size="sm" variant="danger" onClick={onRemove} aria-label={t("webhooks.removeNamed", { url: endpoint.url })}>
                  {t("webhooks.remove")}
                </Button>
              </>
            )}
          </div>
        </div>
        {test.isError && (
          <div className="mt-3">
            <Notice tone="error">{test.error.message}</Notice>
          </div>
        )}
        {open && (
          <div id={logId} className="mt-4 border-t border-zinc-200 pt-4">
            <DeliveryLog endpointId={endpoint.id} canEdit={canEdit} />
          </div>
        )}
      </Card>
    </li>
  );
}

/** Webhook endpoints: add one (its secret shown once), send a test, read the delivery log, resend, remove. */
export function WebhooksSection({ canEdit }: { canEdit: boolean }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [removing, setRemoving] = useState<WebhookEndpoint | null>(null);
  const query = useQuery({ queryKey: webhooksQueryKey, queryFn: ({ signal }) => fetchWebhooks(signal), refetchInterval: 15_000 });
  const remove = useMutation({
    mutationFn: (endpoint: WebhookEndpoint) => removeWebhook(endpoint.id),
    onSuccess: () => {
      setRemoving(null);
      void queryClient.invalidateQueries({ queryKey: webhooksQueryKey });
    },
  });

  return (
    <section aria-labelledby="webhooks-heading" className="space-y-3">
      <div>
        <h2 id="webhooks-heading" className="text-base font-semibold text-zinc-900">
          {t("webhooks.title")}
        </h2>
        <p className="mt-1 text-sm text-zinc-500">{t("webhooks.body")}</p>
      </div>
      {canEdit && <CreateWebhookForm onCreated={setCreated} />}
      <SecretDialog created={created} onClose={() => setCreated(null)} />
      <h3 className="pt-2 text-sm font-semibold text-zinc-900">{t("webhooks.listTitle")}</h3>
      {query.isPending ? (
        <LoadingBlock label={t("webhooks.loading")} rows={2} />
      ) : query.isError ? (
        <ErrorState title={t("webhooks.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title={t("webhooks.emptyTitle")} body={t("webhooks.emptyBody")} testId="webhooks-empty" />
      ) : (
        <ul className="space-y-3" aria-label={t("webhooks.listTitle")}>
          {query.data.map((endpoint) => (
            <EndpointCard key={endpoint.id} endpoint={endpoint} canEdit={canEdit} onRemove={() => setRemoving(endpoint)} />
          ))}
        </ul>
      )}
      <Dialog
        open={removing !== null}
        onClose={() => {
          remove.reset();
          setRemoving(null);
        }}
        title={t("webhooks.removeTitle")}
        closeLabel={t("common.close")}
        testId="remove-webhook-dialog"
        footer={
          <>
            <Button onClick={() => setRemoving(null)}>{t("common.cancel")}</Button>
            <Button variant="primary" className="bg-red-600 hover:bg-red-500" onClick={() => removing && remove.mutate(removing)} disabled={remove.isPending}>
              {remove.isPending ? t("webhooks.removing") : t("webhooks.confirmRemove")}
            </Button>
          </>
        }
      >
        <p className="break-words text-sm text-zinc-600">{t("webhooks.removeBody", { url: removing?.url ?? "" })}</p>
        {remove.isError && (
          <div className="mt-3">
            <Notice tone="error">{remove.error.message}</Notice>
          </div>
        )}
      </Dialog>
    </section>
  );
}

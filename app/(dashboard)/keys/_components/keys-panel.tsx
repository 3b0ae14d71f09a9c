"use client";

import { Suspense, useId, useMemo, useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { DataTable } from "@/components/tables/data-table";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { apiKeysQueryKey, createApiKey, fetchApiKeys, revokeApiKey, type ApiKeyItem, type CreatedApiKey } from "@/lib/dashboard/api-keys";
import { forgetApiKeyIfId, useStoredApiKey } from "@/lib/dashboard/api-key-store";
import { formatCount, formatCredits, formatDateTime } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { KeyPeriodSpendCell, useKeyPeriodSpend } from "./key-period-spend";

const column = createColumnHelper<ApiKeyItem>();

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const inputId = useId();
  const create = useMutation({
    mutationFn: (value: string) => createApiKey(value),
    onSuccess: (key) => {
      setName("");
      onCreated(key);
      void queryClient.invalidateQueries({ queryKey: apiKeysQueryKey });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (name.trim()) create.mutate(name.trim());
  }

  return (
    <Card className="p-5">
      <form onSubmit={submit} className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <div className="min-w-0 flex-1">
          <FieldLabel htmlFor={inputId} hint={t("keys.nameHint")}>
            {t("keys.name")}
          </FieldLabel>
          <TextInput id={inputId} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder={t("keys.namePlaceholder")} />
        </div>
        <Button type="submit" variant="primary" disabled={create.isPending || !name.trim()}>
          {create.isPending ? t("keys.creating") : t("keys.create")}
        </Button>
      </form>
      {create.isError && (
        <div className="mt-3">
          <Notice tone="error">{create.error.message}</Notice>
        </div>
      )}
    </Card>
  );
}

function NewKeyDialog({ created, onClose, onUseHere }: { created: CreatedApiKey | null; onClose: () => void; onUseHere: (key: CreatedApiKey) => void }) {
  const { t } = useI18n();
  const [used, setUsed] = useState(false);
  return (
    <Dialog
      open={created !== null}
      onClose={() => {
        setUsed(false);
        onClose();
      }}
      title={t("keys.createdTitle")}
      description={t("keys.createdBody")}
      closeLabel={t("common.close")}
      testId="new-key-dialog"
      footer={
        <>
          {created && (
            <Button
              onClick={() => {
                onUseHere(created);
                setUsed(true);
              }}
              disabled={used}
            >
              {used ? t("keys.usingHere") : t("keys.useHere")}
            </Button>
          )}
          <Button
            variant="primary"
            onClick={() => {
              setUsed(false);
              onClose();
            }}
          >
            {t("keys.savedIt")}
          </Button>
        </>
      }
    >
      {created && (
        <div className="space-y-3">
          <p className="text-sm text-zinc-600">
            {t("keys.name")}: <strong className="text-zinc-900">{created.name}</strong>
          </p>
          <div className="flex items-center gap-2 rounded-lg border border-zinc-200 bg-zinc-50 p-3">
            <code className="min-w-0 flex-1 break-all font-mono text-sm text-zinc-900" data-testid="new-key-value">
              {created.api_key}
            </code>
            <CopyButton value={created.api_key} label={t("keys.copyKey")} showLabel />
          </div>
          <Notice tone="warn">{t("keys.onceWarning")}</Notice>
          <p className="text-xs text-zinc-500">{t("keys.useHereHint")}</p>
          <McpSnippet apiKey={created.api_key} />
        </div>
      )}
    </Dialog>
  );
}

/** The new key as an MCP client's configuration (docs/mcp.md has the other clients). */
function McpSnippet({ apiKey }: { apiKey: string }) {
  const { t } = useI18n();
  const url = `${typeof window === "undefined" ? "" : window.location.origin}/api/v1/mcp`;
  const json = JSON.stringify({ mcpServers: { tollgate: { url, headers: { Authorization: `Bearer ${apiKey}` } } } }, null, 2);
  const claudeCode = `claude mcp add --transport http tollgate ${url} --header "Authorization: Bearer ${apiKey}"`;
  return (
    <div className="space-y-2 border-t border-zinc-200 pt-3" data-testid="new-key-mcp">
      <p className="text-sm font-medium text-zinc-900">{t("keys.mcpTitle")}</p>
      <p className="text-xs text-zinc-500">{t("keys.mcpBody")}</p>
      <div className="relative">
        <pre className="max-h-48 overflow-auto rounded-lg border border-zinc-200 bg-zinc-50 p-3 font-mono text-xs text-zinc-900">{json}</pre>
        <div className="absolute right-2 top-2">
          <CopyButton value={json} label={t("keys.copyMcpJson")} />
        </div>
      </div>
      <div className="flex items-start gap-2 rounded-lg border border-zinc-200 bg-zinc-50 p-2">
        <code className="min-w-0 flex-1 break-all font-mono text-xs text-zinc-900">{claudeCode}</code>
        <CopyButton value={claudeCode} label={t("keys.copyMcpCommand")} />
      </div>
    </div>
  );
}

function KeysTable({ userId, accountId }: { userId: string; accountId: string }) {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  const queryClient = useQueryClient();
  const stored = useStoredApiKey(userId, accountId);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyItem | null>(null);
  const query = useQuery({ queryKey: apiKeysQueryKey, queryFn: ({ signal }) => fetchApiKeys(signal) });
  const periodSpend = useKeyPeriodSpend(tz.timeZone);

  const revoke = useMutation({
    mutationFn: (key: ApiKeyItem) => revokeApiKey(key.api_key_id),
    onSuccess: (_, key) => {
      // A revoked key is useless in the Playground: stop offering it there.
      forgetApiKeyIfId(userId, key.api_key_id);
      if (stored.key && !stored.key.apiKeyId && stored.key.prefix === key.prefix) stored.forget();
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: apiKeysQueryKey });
    },
  });

  const storedKey = stored.key;
  const columns = useMemo(
    () => [
      column.accessor("name", {
        header: () => t("keys.name"),
        cell: (info) => {
          const key = info.row.original;
          const here = storedKey && (storedKey.apiKeyId === key.api_key_id || (!storedKey.apiKeyId && storedKey.prefix === key.prefix));
          return (
            <span className="flex min-w-0 flex-wrap items-center gap-1.5">
              <span className="font-medium text-zinc-900">{info.getValue()}</span>
              {here && <Badge tone="indigo">{t("keys.inThisBrowser")}</Badge>}
            </span>
          );
        },
        meta: { primary: true },
      }),
      column.accessor("prefix", {
        header: () => t("keys.key"),
        cell: (info) => <code className="font-mono text-xs text-zinc-700">{info.getValue()}…</code>,
      }),
      column.accessor("revoked_at", {
        header: () => t("keys.status"),
        cell: (info) =>
          info.getValue() ? (
            <Badge tone="neutral" title={formatDateTime(info.getValue(), tz.timeZone)}>
              {t("keys.revoked")}
            </Badge>
          ) : (
            <Badge tone="green">{t("keys.active")}</Badge>
          ),
      }),
      column.accessor("created_at", {
        header: () => t("keys.created"),
        cell: (info) => <span className="tabular-nums text-zinc-600">{formatDateTime(info.getValue(), tz.timeZone, { seconds: false })}</span>,
      }),
      column.accessor("last_used_at", {
        header: () => t("keys.lastUsed"),
        cell: (info) => <span className="tabular-nums text-zinc-600">{info.getValue() ? formatDateTime(info.getValue(), tz.timeZone, { seconds: false }) : t("keys.never")}</span>,
      }),
      column.accessor("credits_spent", {
        header: () => t("keys.spent"),
        cell: (info) => <span className="tabular-nums" data-testid="key-spent">{formatCredits(info.getValue(), locale)}</span>,
        meta: { align: "right" },
      }),
      column.display({
        id: "period_spend",
        header: () => t("keys.periodSpend"),
        cell: (info) => <KeyPeriodSpendCell apiKeyId={info.row.original.api_key_id} spend={periodSpend} timeZone={tz.timeZone} />,
      }),
      column.accessor("usage_event_count", {
        header: () => t("keys.events"),
        cell: (info) => <span className="tabular-nums text-zinc-600">{formatCount(info.getValue(), locale)}</span>,
        meta: { align: "right" },
      }),
      column.display({
        id: "actions",
        header: () => <span className="sr-only">{t("keys.actions")}</span>,
        cell: (info) =>
          info.row.original.revoked_at ? null : (
            <Button size="sm" variant="danger" onClick={() => setRevoking(info.row.original)} aria-label={t("keys.revokeNamed", { name: info.row.original.name })}>
              {t("keys.revoke")}
            </Button>
          ),
        meta: { align: "right" },
      }),
    ],
    [t, locale, tz.timeZone, storedKey, periodSpend],
  );

  return (
    <div className="space-y-6">
      <CreateKeyForm onCreated={setCreated} />
      <NewKeyDialog
        created={created}
        onClose={() => setCreated(null)}
        onUseHere={(key) => stored.save({ apiKey: key.api_key, prefix: key.prefix, name: key.name, apiKeyId: key.api_key_id })}
      />

      <section aria-labelledby="keys-list-heading" className="space-y-3">
        <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
          <h2 id="keys-list-heading" className="text-sm font-semibold text-zinc-900">
            {t("keys.listTitle")}
          </h2>
          <TimeZoneSwitch tz={tz} />
        </div>
        {query.isPending ? (
          <LoadingBlock label={t("keys.loading")} />
        ) : query.isError ? (
          <ErrorState title={t("keys.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
        ) : query.data.length === 0 ? (
          <EmptyState title={t("keys.emptyTitle")} body={t("keys.emptyBody")} testId="keys-empty" />
        ) : (
          <DataTable data={query.data} columns={columns} caption={t("keys.listTitle")} getRowId={(k) => k.api_key_id} rowTestId="key-row" />
        )}
        <p className="text-xs text-zinc-500">{t("keys.spendNote")}</p>
        <p className="text-xs text-zinc-500">{t("keys.periodNote", { tz: tz.timeZone })}</p>
      </section>

      <Dialog
        open={revoking !== null}
        onClose={() => {
          revoke.reset();
          setRevoking(null);
        }}
        title={t("keys.revokeTitle", { name: revoking?.name ?? "" })}
        closeLabel={t("common.close")}
        testId="revoke-dialog"
        footer={
          <>
            <Button onClick={() => setRevoking(null)}>{t("common.cancel")}</Button>
            <Button variant="primary" className="bg-red-600 hover:bg-red-500" onClick={() => revoking && revoke.mutate(revoking)} disabled={revoke.isPending}>
              {revoke.isPending ? t("keys.revoking") : t("keys.confirmRevoke")}
            </Button>
          </>
        }
      >
        <p className="text-sm text-zinc-600">{t("keys.revokeBody", { prefix: revoking?.prefix ?? "" })}</p>
        {revoke.isError && (
          <div className="mt-3">
            <Notice tone="error">{revoke.error.message}</Notice>
          </div>
        )}
      </Dialog>
    </div>
  );
}

export function KeysPanel({ userId, accountId }: { userId: string; accountId: string }) {
  const { t } = useI18n();
  return (
    <Suspense fallback={<LoadingBlock label={t("keys.loading")} />}>
      <KeysTable userId={userId} accountId={accountId} />
    </Suspense>
  );
}

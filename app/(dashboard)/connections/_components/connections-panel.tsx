"use client";

import { useCallback, useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ConnectReturnBanner } from "@/components/connections/connect-return-banner";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import {
  CONNECT_ERROR_PARAM,
  CONNECTED_PARAM,
  connectionsQueryKey,
  disconnectConnection,
  fetchConnections,
  mayShare,
  type Connection,
  type ConnectableProvider,
  type ConnectionsList,
  type Disconnected,
} from "@/lib/dashboard/connections";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { useUrlParams } from "@/lib/dashboard/url-state";
import type { UserRole } from "@/lib/vocab/roles";
import { ConnectionsTable } from "./connections-table";
import { ProviderList } from "./provider-list";
import { SecretConnectForm } from "./secret-form";
import { SharingControl } from "./sharing-control";

/** A provider's display name from the list (the callback's `?connected=` carries its id). */
function providerName(data: ConnectionsList | undefined, id: string): string {
  return data?.providers.find((p) => p.provider_id === id)?.name ?? data?.connections.find((c) => c.provider_id === id)?.provider_name ?? id;
}

function DisconnectedBanner({ result, onDismiss }: { result: Disconnected; onDismiss: () => void }) {
  const { t } = useI18n();
  const provider = result.provider_name;
  return (
    <Notice tone="success" title={t("connections.disconnectedTitle", { provider })} testId="disconnected-banner">
      <p>
        {result.kind === "secret"
          ? t("connections.secretDeleted", { provider })
          : result.revoked_at_provider
            ? t("connections.revokedAtProvider", { provider })
            : t("connections.notRevokedAtProvider", { provider })}
      </p>
      <Button size="sm" className="mt-2" onClick={onDismiss}>
        {t("common.close")}
      </Button>
    </Notice>
  );
}

function DisconnectDialog({ connection, currentUserId, onClose, onDone }: { connection: Connection | null; currentUserId: string; onClose: () => void; onDone: (result: Disconnected) => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const disconnect = useMutation({
    mutationFn: (c: Connection) => disconnectConnection(c.connection_id),
    onSuccess: (result) => {
      void queryClient.invalidateQueries({ queryKey: connectionsQueryKey });
      onDone(result);
      close();
    },
  });
  function close() {
    disconnect.reset();
    onClose();
  }
  const provider = connection?.provider_name ?? "";
  const body =
    connection?.owner === "account"
      ? t("connections.disconnectSharedBody", { provider })
      : connection && connection.user_id !== currentUserId
        ? t("connections.disconnectMemberBody", { provider, email: connection.user_email ?? connection.user_id ?? "" })
        : t("connections.disconnectBody", { provider });
  return (
    <Dialog
      open={connection !== null}
      onClose={close}
      title={t("connections.disconnectTitle", { provider })}
      closeLabel={t("common.close")}
      testId="disconnect-dialog"
      footer={
        <>
          <Button onClick={close}>{t("common.cancel")}</Button>
          <Button variant="primary" className="bg-red-600 hover:bg-red-500" onClick={() => connection && disconnect.mutate(connection)} disabled={disconnect.isPending} data-testid="confirm-disconnect">
            {disconnect.isPending ? t("connections.disconnecting") : t("connections.confirmDisconnect")}
          </Button>
        </>
      }
    >
      <div className="space-y-2 text-sm text-zinc-600">
        <p>{body}</p>
        <p>{t("connections.disconnectRevokes", { provider })}</p>
      </div>
      {disconnect.isError && (
        <div className="mt-3">
          <Notice tone="error">{disconnect.error.message}</Notice>
        </div>
      )}
    </Dialog>
  );
}

function SecretDialog({ target, onClose, onConnected }: { target: { provider: ConnectableProvider; shared: boolean } | null; onClose: () => void; onConnected: (providerId: string) => void }) {
  const { t } = useI18n();
  return (
    <Dialog open={target !== null} onClose={onClose} title={t("connections.secret.title", { provider: target?.provider.name ?? "" })} closeLabel={t("common.close")} testId="secret-dialog">
      {target && (
        <SecretConnectForm
          provider={target.provider}
          shared={target.shared}
          onCancel={onClose}
          onConnected={(c) => {
            onClose();
            onConnected(c.provider_id);
          }}
        />
      )}
    </Dialog>
  );
}

// Revoked rows stay for the record, below the ones in use.
const statusOrder = { needs_reauth: 0, active: 1, revoked: 2 } as const;

/**
 * The Connections page: the accounts at other services that tools act with — the user's own, the
 * account's shared ones, and (owners, support) every member's — with connect, reconnect and
 * disconnect; and, for owners, who may share with the whole account. Support only reads.
 */
export function ConnectionsPanel({ currentUserId, role }: { currentUserId: string; role: UserRole }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const [, update] = useUrlParams();
  const query = useQuery({ queryKey: connectionsQueryKey, queryFn: ({ signal }) => fetchConnections(signal) });
  const [disconnecting, setDisconnecting] = useState<Connection | null>(null);
  const [disconnected, setDisconnected] = useState<Disconnected | null>(null);
  const [secretFor, setSecretFor] = useState<{ provider: ConnectableProvider; shared: boolean } | null>(null);

  const data = query.data;
  const canConnect = role !== "support";
  const canShare = canConnect && data !== undefined && mayShare(role, data.sharing);
  const providersById = useMemo(() => new Map(data?.providers.map((p) => [p.provider_id, p])), [data]);
  const rows = useMemo(() => [...(data?.connections ?? [])].sort((a, b) => statusOrder[a.status] - statusOrder[b.status]), [data]);
  const connectedIds = useMemo(
    () => new Set(rows.filter((c) => c.status === "active" && (c.owner === "account" || c.user_id === currentUserId)).map((c) => c.provider_id)),
    [rows, currentUserId],
  );

  // One's own connection is reconnected as one's own; a shared one by whoever may share.
  const reconnectable = useCallback(
    (c: Connection) => {
      const provider = providersById.get(c.provider_id);
      if (!canConnect || !provider?.ready) return null;
      return (c.owner === "user" && c.user_id === currentUserId) || (c.owner === "account" && canShare) ? provider : null;
    },
    [providersById, canConnect, canShare, currentUserId],
  );
  const mayDisconnect = useCallback((c: Connection) => canConnect && c.status !== "revoked" && (role === "owner" || (c.owner === "user" && c.user_id === currentUserId)), [canConnect, role, currentUserId]);
  const openSecret = useCallback((provider: ConnectableProvider, shared: boolean) => setSecretFor({ provider, shared }), []);

  return (
    <div className="space-y-8">
      <div className="space-y-3 empty:hidden">
        <ConnectReturnBanner nameOf={(id) => providerName(data, id)} connectedBody={(provider) => t("connections.connectedBody", { provider })} />
        {disconnected && <DisconnectedBanner result={disconnected} onDismiss={() => setDisconnected(null)} />}
        {!canConnect && <Notice testId="connections-read-only">{t("connections.readOnly")}</Notice>}
      </div>

      <section aria-labelledby="connections-heading" className="space-y-3">
        <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
          <h2 id="connections-heading" className="text-sm font-semibold text-zinc-900">
            {t("connections.listTitle")}
          </h2>
          {rows.length > 0 && <TimeZoneSwitch tz={tz} />}
        </div>
        {query.isPending ? (
          <LoadingBlock label={t("connections.loading")} />
        ) : query.isError ? (
          <ErrorState title={t("connections.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
        ) : rows.length === 0 ? (
          <EmptyState title={t("connections.emptyTitle")} body={t("connections.emptyBody")} testId="connections-empty" />
        ) : (
          <ConnectionsTable
            connections={rows}
            currentUserId={currentUserId}
            tz={tz}
            reconnectable={reconnectable}
            mayDisconnect={mayDisconnect}
            onSecret={openSecret}
            onDisconnect={(c) => {
              setDisconnected(null);
              setDisconnecting(c);
            }}
          />
        )}
      </section>

      {data && <ProviderList providers={data.providers} connectedIds={connectedIds} canConnect={canConnect} canShare={canShare} onSecret={openSecret} />}

      {data && role === "owner" && <SharingControl sharing={data.sharing} />}

      <DisconnectDialog connection={disconnecting} currentUserId={currentUserId} onClose={() => setDisconnecting(null)} onDone={setDisconnected} />
      <SecretDialog target={secretFor} onClose={() => setSecretFor(null)} onConnected={(providerId) => update({ [CONNECTED_PARAM]: providerId, [CONNECT_ERROR_PARAM]: null })} />
    </div>
  );
}

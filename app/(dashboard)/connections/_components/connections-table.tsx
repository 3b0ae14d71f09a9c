"use client";

import { useMemo } from "react";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { OAuthConnectButton } from "@/components/connections/connect-button";
import { DataTable } from "@/components/tables/data-table";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import type { Connection, ConnectableProvider, ConnectionStatus } from "@/lib/dashboard/connections";
import { formatDateTime } from "@/lib/dashboard/format";
import type { TimeZoneState } from "@/lib/dashboard/time-zone";

const column = createColumnHelper<Connection>();

const statusTones: Record<ConnectionStatus, Tone> = { active: "green", needs_reauth: "amber", revoked: "neutral" };

export interface ConnectionsTableProps {
  connections: Connection[];
  currentUserId: string;
  tz: TimeZoneState;
  /** The connectable provider a row reconnects with, when this user may reconnect it (else null). */
  reconnectable: (c: Connection) => ConnectableProvider | null;
  mayDisconnect: (c: Connection) => boolean;
  onSecret: (provider: ConnectableProvider, shared: boolean) => void;
  onDisconnect: (c: Connection) => void;
}

function StatusCell({ connection: c }: { connection: Connection }) {
  const { t } = useI18n();
  return (
    <div className="min-w-32 max-w-52 space-y-0.5">
      <Badge tone={statusTones[c.status]}>{t(`connections.statusLabel.${c.status}`)}</Badge>
      {c.status === "needs_reauth" && c.status_reason && <p className="break-words text-xs text-zinc-500">{t("connections.reasonDetail", { reason: c.status_reason })}</p>}
    </div>
  );
}

function Whose({ connection: c, currentUserId }: { connection: Connection; currentUserId: string }) {
  const { t } = useI18n();
  if (c.owner === "account") return <Badge tone="sky">{t("connections.owner.shared")}</Badge>;
  if (c.user_id === currentUserId) return <Badge tone="indigo">{t("connections.owner.you")}</Badge>;
  return <span className="max-w-full break-words text-xs text-zinc-600">{c.user_email ?? c.user_id}</span>;
}

function ScopesCell({ connection: c }: { connection: Connection }) {
  const { t } = useI18n();
  if (c.kind === "secret") return <span className="whitespace-nowrap text-zinc-500">{t("connections.pastedKey")}</span>;
  if (c.scopes.length === 0) return <span className="whitespace-nowrap text-zinc-500">{t("connections.defaultScopes")}</span>;
  return (
    // Capped, so a scope that is a whole URL wraps inside it rather than squeezing short ones letter by letter.
    <span className="flex max-w-40 flex-wrap gap-1">
      {c.scopes.map((s) => (
        <code key={s} className="max-w-full break-words rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[11px] text-zinc-700">
          {s}
        </code>
      ))}
    </span>
  );
}

/** The connections the user may see: theirs, the account's shared ones, and (owners, support) every member's. */
export function ConnectionsTable({ connections, currentUserId, tz, reconnectable, mayDisconnect, onSecret, onDisconnect }: ConnectionsTableProps) {
  const { t } = useI18n();
  const columns = useMemo(
    () => [
      // Whose it is sits under the service's name: one column fewer, so the table fits a laptop.
      column.accessor("provider_name", {
        header: () => t("connections.provider"),
        cell: (info) => (
          <div className="flex min-w-0 max-w-56 flex-col items-start gap-1">
            <span className="break-words font-medium text-zinc-900">{info.getValue()}</span>
            <Whose connection={info.row.original} currentUserId={currentUserId} />
          </div>
        ),
        meta: { primary: true },
      }),
      column.display({ id: "scopes", header: () => t("connections.scopes"), cell: (info) => <ScopesCell connection={info.row.original} /> }),
      column.accessor("status", { header: () => t("connections.status"), cell: (info) => <StatusCell connection={info.row.original} /> }),
      column.accessor("last_used_at", {
        header: () => t("connections.lastUsed"),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-600">{info.getValue() ? formatDateTime(info.getValue(), tz.timeZone, { seconds: false }) : t("connections.never")}</span>,
      }),
      column.accessor("created_at", {
        header: () => t("connections.connectedAt", { tz: tz.timeZone }),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-600">{formatDateTime(info.getValue(), tz.timeZone, { seconds: false })}</span>,
      }),
      column.display({
        id: "actions",
        header: () => <span className="sr-only">{t("connections.actions")}</span>,
        cell: (info) => {
          const c = info.row.original;
          const provider = reconnectable(c);
          const name = c.provider_name;
          const shared = c.owner === "account";
          return (
            <div className="flex flex-wrap items-start justify-end gap-2">
              {provider &&
                (provider.kind === "oauth2" ? (
                  <OAuthConnectButton
                    input={{ providerId: c.provider_id, shared, scopes: c.scopes, returnTo: "/connections" }}
                    providerName={name}
                    variant={c.status === "active" ? "secondary" : "primary"}
                    size="sm"
                    className="whitespace-nowrap"
                    ariaLabel={t("connections.reconnectNamed", { provider: name })}
                    testId="reconnect"
                  >
                    {t("connections.reconnect")}
                  </OAuthConnectButton>
                ) : (
                  <Button size="sm" className="whitespace-nowrap" variant={c.status === "active" ? "secondary" : "primary"} onClick={() => onSecret(provider, shared)} aria-label={t("connections.reconnectNamed", { provider: name })} data-testid="reconnect">
                    {t("connections.reconnect")}
                  </Button>
                ))}
              {mayDisconnect(c) && (
                <Button size="sm" className="whitespace-nowrap" variant="danger" onClick={() => onDisconnect(c)} aria-label={t("connections.disconnectNamed", { provider: name })} data-testid="disconnect">
                  {t("connections.disconnect")}
                </Button>
              )}
            </div>
          );
        },
        meta: { align: "right" as const },
      }),
    ],
    [t, tz.timeZone, currentUserId, reconnectable, mayDisconnect, onSecret, onDisconnect],
  );
  return <DataTable data={connections} columns={columns} caption={t("connections.listTitle")} getRowId={(c) => c.connection_id} rowTestId="connection-row" />;
}

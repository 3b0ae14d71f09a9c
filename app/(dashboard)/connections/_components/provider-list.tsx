"use client";

import { useId, useState } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { OAuthConnectButton } from "@/components/connections/connect-button";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Notice } from "@/components/ui/states";
import type { ConnectableProvider } from "@/lib/dashboard/connections";

export interface ProviderListProps {
  providers: ConnectableProvider[];
  /** Providers the user already has an active connection with (their own or the account's). */
  connectedIds: ReadonlySet<string>;
  /** False for support: they read, never connect. */
  canConnect: boolean;
  canShare: boolean;
  /** Opens the paste form of a secret provider. */
  onSecret: (provider: ConnectableProvider, shared: boolean) => void;
}

function kindText(provider: ConnectableProvider, t: ReturnType<typeof useI18n>["t"]): string {
  if (provider.kind === "oauth2") return t("connections.kindOauth", { provider: provider.name });
  return provider.format === "basic" ? t("connections.kindBasic") : (provider.label ?? t("connections.kindSecret"));
}

function ProviderCard({ provider, connected, canConnect, canShare, onSecret }: { provider: ConnectableProvider; connected: boolean } & Omit<ProviderListProps, "providers" | "connectedIds">) {
  const { t } = useI18n();
  const [shared, setShared] = useState(false);
  const shareId = useId();
  const name = provider.name;
  const scopes = Object.entries(provider.scopes);
  return (
    <Card className="flex h-full min-w-0 flex-col gap-3 p-4" data-testid="provider-card" data-provider-id={provider.provider_id}>
      <div className="flex min-w-0 items-start justify-between gap-2">
        <div className="min-w-0">
          <h3 className="break-words text-sm font-semibold text-zinc-900">{name}</h3>
          <p className="mt-0.5 break-words text-xs text-zinc-500">{kindText(provider, t)}</p>
        </div>
        {connected && <Badge tone="green">{t("connections.connectedBadge")}</Badge>}
      </div>
      {scopes.length > 0 && (
        <details className="text-xs text-zinc-600">
          <summary className="cursor-pointer font-medium text-zinc-600">
            {t("connections.offeredScopes")} ({scopes.length})
          </summary>
          <ul className="mt-2 space-y-1">
            {scopes.map(([scope, description]) => (
              <li key={scope} className="min-w-0 break-words">
                <code className="break-all rounded bg-zinc-100 px-1 py-0.5 font-mono text-[11px] text-zinc-700">{scope}</code> {description}
              </li>
            ))}
          </ul>
        </details>
      )}
      <div className="mt-auto">
        {!provider.ready ? (
          <Notice tone="warn" testId="provider-not-ready">
            {t("connections.notReady", { provider: name })}
          </Notice>
        ) : canConnect ? (
          <div className="flex flex-col gap-3">
            {canShare && (
              <label htmlFor={shareId} className="flex min-w-0 items-start gap-2 text-sm text-zinc-700">
                <input id={shareId} type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} className="mt-0.5 accent-indigo-600" data-testid="share-with-account" />
                <span className="min-w-0">
                  {t("connections.shareWithAccount")}
                  <span className="block text-xs text-zinc-500">{t("connections.shareHint", { provider: name })}</span>
                </span>
              </label>
            )}
            <div className="flex justify-end">
              {provider.kind === "oauth2" ? (
                <OAuthConnectButton input={{ providerId: provider.provider_id, shared, returnTo: "/connections" }} providerName={name} ariaLabel={t("connections.connectNamed", { provider: name })} testId="connect-provider">
                  {t("connections.connect")}
                </OAuthConnectButton>
              ) : (
                <Button variant="primary" onClick={() => onSecret(provider, shared)} aria-label={t("connections.connectNamed", { provider: name })} data-testid="connect-provider">
                  {t("connections.connect")}
                </Button>
              )}
            </div>
          </div>
        ) : null}
      </div>
    </Card>
  );
}

/** The services the catalog lets a user connect, each with how (sign-in or a pasted key) and whether it can be used yet. */
export function ProviderList(props: ProviderListProps) {
  const { t } = useI18n();
  const { providers, connectedIds, ...rest } = props;
  return (
    <section aria-labelledby="providers-heading" className="space-y-3">
      <div>
        <h2 id="providers-heading" className="text-sm font-semibold text-zinc-900">
          {t("connections.providersTitle")}
        </h2>
        <p className="mt-0.5 text-sm text-zinc-500">{t("connections.providersBody")}</p>
      </div>
      {providers.length === 0 ? (
        <Notice testId="providers-empty">{t("connections.providersEmpty")}</Notice>
      ) : (
        <ul className="grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
          {providers.map((p) => (
            <li key={p.provider_id} className="min-w-0">
              <ProviderCard provider={p} connected={connectedIds.has(p.provider_id)} {...rest} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

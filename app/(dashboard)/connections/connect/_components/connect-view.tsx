"use client";

import { useId, useState } from "react";
import { useRouter } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { OAuthConnectButton } from "@/components/connections/connect-button";
import { ButtonLink } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { PageHeader } from "@/components/ui/page-header";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { connectionsQueryKey, fetchConnections, mayShare, withConnected, type ConnectableProvider, type ConnectRequest, type ConnectionsList } from "@/lib/dashboard/connections";
import type { UserRole } from "@/lib/vocab/roles";
import { SecretConnectForm } from "../../_components/secret-form";

function ScopeList({ provider, scopes }: { provider: ConnectableProvider; scopes: string[] }) {
  const { t } = useI18n();
  if (scopes.length === 0) return <p className="text-sm text-zinc-600">{t("connections.connectPage.scopesDefault", { provider: provider.name })}</p>;
  return (
    <ul className="space-y-1.5" data-testid="requested-scopes">
      {scopes.map((scope) => (
        <li key={scope} className="min-w-0 break-words text-sm text-zinc-700">
          <code className="break-all rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs text-zinc-800">{scope}</code>
          {Object.hasOwn(provider.scopes, scope) && <span className="ml-2">{provider.scopes[scope]}</span>}
        </li>
      ))}
    </ul>
  );
}

function ConnectCard({ request, provider, data, currentUserId, role }: { request: ConnectRequest; provider: ConnectableProvider; data: ConnectionsList; currentUserId: string; role: UserRole }) {
  const { t } = useI18n();
  const router = useRouter();
  const shareId = useId();
  const canShare = mayShare(role, data.sharing);
  // A link asking for a shared connection is shared (its Calls have no user of their own); otherwise the user may choose.
  const [shared, setShared] = useState(request.shared);
  const name = provider.name;
  const returnTo = request.returnTo ?? "/connections";
  const already = data.connections.some((c) => c.provider_id === provider.provider_id && c.status === "active" && (shared ? c.owner === "account" : c.owner === "user" && c.user_id === currentUserId));

  if (request.shared && !canShare) return <Notice tone="warn" testId="connect-shared-not-allowed">{t("connections.connectPage.sharedNotAllowed")}</Notice>;
  return (
    <Card className="space-y-5 p-4 sm:p-6" data-testid="connect-card">
      <p className="text-sm leading-6 text-zinc-600">{t("connections.connectPage.body", { provider: name })}</p>
      {provider.kind === "oauth2" && (
        <div>
          <h2 className="mb-2 text-sm font-semibold text-zinc-900">{t("connections.connectPage.scopesTitle")}</h2>
          <ScopeList provider={provider} scopes={request.scopes} />
        </div>
      )}
      {request.shared ? (
        <Notice>{t("connections.connectPage.sharedNote", { provider: name })}</Notice>
      ) : (
        canShare && (
          <label htmlFor={shareId} className="flex items-start gap-2 text-sm text-zinc-700">
            <input id={shareId} type="checkbox" checked={shared} onChange={(e) => setShared(e.target.checked)} className="mt-0.5 accent-indigo-600" />
            <span className="min-w-0">
              {t("connections.shareWithAccount")}
              <span className="block text-xs text-zinc-500">{t("connections.shareHint", { provider: name })}</span>
            </span>
          </label>
        )
      )}
      {already && <Notice tone="info">{t("connections.connectPage.alreadyConnected", { provider: name })}</Notice>}
      {!provider.ready ? (
        <Notice tone="warn" testId="provider-not-ready">
          {t("connections.notReady", { provider: name })}
        </Notice>
      ) : provider.kind === "oauth2" ? (
        <OAuthConnectButton input={{ providerId: provider.provider_id, scopes: request.scopes, shared, returnTo }} providerName={name} testId="connect-provider">
          {t("connections.connectNamed", { provider: name })}
        </OAuthConnectButton>
      ) : (
        <SecretConnectForm provider={provider} shared={shared} onConnected={() => router.push(withConnected(returnTo, provider.provider_id))} />
      )}
      {request.returnTo && (
        <p className="break-words text-xs text-zinc-500">
          {t("connections.connectPage.returnsTo", { path: request.returnTo })}
        </p>
      )}
    </Card>
  );
}

/** The connect page once the link is this user's: the provider, the access asked for, and Connect. */
export function ConnectView({ request, currentUserId, role }: { request: ConnectRequest; currentUserId: string; role: UserRole }) {
  const { t } = useI18n();
  const query = useQuery({ queryKey: connectionsQueryKey, queryFn: ({ signal }) => fetchConnections(signal) });
  const provider = query.data?.providers.find((p) => p.provider_id === request.providerId);
  const title = provider ? t("connections.connectPage.heading", { provider: provider.name }) : t("connections.connectPage.title");
  return (
    <div className="mx-auto max-w-2xl">
      <PageHeader title={title} />
      {query.isPending ? (
        <LoadingBlock label={t("connections.loading")} />
      ) : query.isError ? (
        <ErrorState title={t("connections.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : !provider ? (
        <Notice tone="warn" title={t("connections.connectPage.unknownTitle", { provider: request.providerId })} testId="connect-unknown-provider">
          <p>{t("connections.connectPage.unknownBody")}</p>
          <ButtonLink href="/connections" size="sm" className="mt-3">
            {t("connections.connectPage.toConnections")}
          </ButtonLink>
        </Notice>
      ) : role === "support" ? (
        <Notice testId="connect-read-only">{t("connections.connectPage.readOnly")}</Notice>
      ) : (
        <ConnectCard request={request} provider={provider} data={query.data} currentUserId={currentUserId} role={role} />
      )}
    </div>
  );
}

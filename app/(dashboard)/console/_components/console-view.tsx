"use client";

import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ConnectReturnBanner } from "@/components/connections/connect-return-banner";
import { ApiKeyPicker, RejectedKeyNotice } from "@/components/keys/api-key-picker";
import { ErrorState } from "@/components/ui/error-state";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { useStoredApiKey } from "@/lib/dashboard/api-key-store";
import { inspect } from "@/lib/dashboard/discover";
import { KeyRequestError } from "@/lib/dashboard/key-client";
import { dashboardSessionId } from "@/lib/dashboard/session-id";
import { useUrlParams } from "@/lib/dashboard/url-state";
import { ToolPicker } from "./tool-picker";
import { Workbench } from "./workbench";

export function ConsoleView({ userId, accountId }: { userId: string; accountId: string }) {
  const { t, locale } = useI18n();
  const store = useStoredApiKey(userId, accountId);
  const [params, update] = useUrlParams();
  const toolId = params.get("tool_id")?.trim() ?? "";
  const searchId = params.get("search_id");
  const apiKey = store.key?.apiKey;

  const tool = useQuery({
    queryKey: ["inspect", apiKey, toolId, locale, searchId],
    queryFn: ({ signal }) => inspect(apiKey ?? "", { toolIds: [toolId], lang: locale, searchId, sessionId: dashboardSessionId() }, signal),
    enabled: Boolean(apiKey && toolId),
    staleTime: 60_000,
    retry: (count, error) => !(error instanceof KeyRequestError) && count < 1,
  });

  // Back from a provider's consent page: the tool it was connected for names the provider.
  const needed = tool.data?.results[0]?.requires_connection;
  const nameOf = (providerId: string) => (needed?.provider_id === providerId ? needed.provider_name : providerId);

  return (
    <div className="space-y-6">
      <ConnectReturnBanner nameOf={nameOf} connectedBody={(provider) => t("console.connectedBanner", { provider })} />
      <ApiKeyPicker store={store} accountId={accountId} />
      {apiKey && (
        <ToolPicker
          apiKey={apiKey}
          currentToolId={toolId}
          onPick={(id, fromSearch) => update({ tool_id: id, search_id: fromSearch ?? null })}
        />
      )}
      {!apiKey ? null : !toolId ? (
        <Notice tone="info" title={t("console.pickTitle")}>
          {t("console.pickBody")}
        </Notice>
      ) : tool.isPending ? (
        <LoadingBlock label={t("console.loadingTool")} rows={6} />
      ) : tool.isError ? (
        tool.error instanceof KeyRequestError && tool.error.keyRejected ? (
          <RejectedKeyNotice store={store} message={tool.error.message} />
        ) : (
          <ErrorState title={t("console.toolError")} message={tool.error.message} retryLabel={t("common.retry")} onRetry={() => void tool.refetch()} />
        )
      ) : tool.data.results[0] ? (
        <Workbench key={tool.data.results[0].tool_id} tool={tool.data.results[0]} apiKey={apiKey} searchId={searchId} userId={userId} onKeyRejected={store.forget} />
      ) : (
        <Notice tone="warn" title={t("console.unknownTool", { id: toolId })} testId="unknown-tool">
          {tool.data.error_message ?? t("console.unknownToolBody")}
        </Notice>
      )}
    </div>
  );
}

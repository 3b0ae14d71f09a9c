"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/states";
import { CONNECT_ERROR_PARAM, CONNECTED_PARAM } from "@/lib/dashboard/connections";
import { useUrlParams } from "@/lib/dashboard/url-state";

/**
 * What a connect flow came back with, from the page's URL: `?connected=<provider>` (the provider's
 * callback, or a pasted secret saved) or `?connect_error=<message>`. Closing it takes them out of
 * the URL, so a reload does not show it again.
 */
export function ConnectReturnBanner({ nameOf, connectedBody }: { nameOf: (providerId: string) => string; connectedBody: (provider: string) => string }) {
  const { t } = useI18n();
  const [params, update] = useUrlParams();
  const connected = params.get(CONNECTED_PARAM);
  const failed = params.get(CONNECT_ERROR_PARAM);
  if (!connected && !failed) return null;
  const close = (
    <Button size="sm" className="mt-2" onClick={() => update({ [CONNECTED_PARAM]: null, [CONNECT_ERROR_PARAM]: null })}>
      {t("common.close")}
    </Button>
  );
  if (failed) {
    return (
      <Notice tone="error" title={t("connections.connectErrorTitle")} testId="connect-error-banner">
        <p className="break-words">{failed}</p>
        {close}
      </Notice>
    );
  }
  const provider = nameOf(connected ?? "");
  return (
    <Notice tone="success" title={t("connections.connectedTitle", { provider })} testId="connected-banner">
      <p>{connectedBody(provider)}</p>
      {close}
    </Notice>
  );
}

"use client";

import type { ReactNode } from "react";
import { useMutation } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button, type ButtonSize, type ButtonVariant } from "@/components/ui/button";
import { Notice } from "@/components/ui/states";
import { startConnection, type ConnectInput } from "@/lib/dashboard/connections";

/**
 * Starts an OAuth connection: the API opens a connect flow and answers the provider's consent
 * page, where the browser goes; the provider's callback brings it back to `returnTo`. The button
 * stays busy while the browser leaves.
 */
export function OAuthConnectButton({
  input,
  providerName,
  children,
  variant = "primary",
  size = "md",
  ariaLabel,
  className,
  testId,
}: {
  input: Omit<ConnectInput, "secret">;
  providerName: string;
  children: ReactNode;
  variant?: ButtonVariant;
  size?: ButtonSize;
  ariaLabel?: string;
  className?: string;
  testId?: string;
}) {
  const { t } = useI18n();
  const connect = useMutation({
    mutationFn: () => startConnection(input),
    onSuccess: (started) => {
      if (started.kind === "oauth2") window.location.assign(started.authorization_url);
    },
  });
  const leaving = connect.isSuccess && connect.data.kind === "oauth2";
  return (
    <div className="min-w-0 space-y-2">
      <Button variant={variant} size={size} onClick={() => connect.mutate()} disabled={connect.isPending || leaving} aria-label={ariaLabel} className={className} data-testid={testId}>
        {leaving ? t("connections.redirecting", { provider: providerName }) : connect.isPending ? t("connections.connecting") : children}
      </Button>
      {connect.isError && (
        <Notice tone="error" testId="connect-error">
          {connect.error.message}
        </Notice>
      )}
    </div>
  );
}

"use client";

import Link from "next/link";
import { useI18n } from "@/components/i18n/i18n-provider";
import { OAuthConnectButton } from "@/components/connections/connect-button";
import { ButtonLink } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Notice } from "@/components/ui/states";
import { connectPageHref, currentReturnTo, type SigninRequired } from "@/lib/dashboard/connections";
import type { RequiredConnection } from "@/lib/dashboard/discover";

/**
 * A Call refused (or, Probe says, one that would be) for want of the caller's own account at the
 * provider (`oauth_signin_required`): Connect, and the provider's consent page brings the browser
 * back to this Console page, the same tool selected. A key's Calls act as its creator: when that
 * is someone else, they must connect, so the link is theirs to open.
 */
export function SigninNotice({ signin, connection, currentUserId }: { signin: SigninRequired; connection: RequiredConnection | null; currentUserId: string }) {
  const { t } = useI18n();
  const known = connection?.provider_id === signin.providerId ? connection : null;
  const provider = known?.provider_name ?? signin.providerId;
  const returnTo = typeof window === "undefined" ? "/console" : currentReturnTo(window.location);
  const someoneElse = signin.forUserId !== null && signin.forUserId !== currentUserId;
  return (
    <Notice tone="warn" title={t("console.signinTitle", { provider })} testId="signin-required">
      <p>{t("console.signinBody", { provider })}</p>
      {signin.scopes.length > 0 && (
        <p className="mt-2 flex flex-wrap items-center gap-1">
          <span>{t("console.signinScopes")}</span>
          {signin.scopes.map((s) => (
            <code key={s} className="break-all rounded bg-white/70 px-1.5 py-0.5 font-mono text-[11px]">
              {s}
            </code>
          ))}
        </p>
      )}
      {someoneElse ? (
        <div className="mt-3 space-y-2">
          <p>{t("console.signinOtherUser", { provider })}</p>
          {signin.signinUrl && (
            <div className="flex items-center gap-2 rounded-lg border border-amber-200 bg-white p-2">
              <code className="min-w-0 flex-1 break-all font-mono text-xs text-zinc-900">{signin.signinUrl}</code>
              <CopyButton value={signin.signinUrl} label={t("console.copySigninUrl")} />
            </div>
          )}
        </div>
      ) : (
        <div className="mt-3">
          {known?.kind === "secret" ? (
            <ButtonLink variant="primary" href={connectPageHref({ providerId: signin.providerId, scopes: signin.scopes, shared: signin.shared, returnTo })} data-testid="connect-from-call">
              {t("console.connectProvider", { provider })}
            </ButtonLink>
          ) : (
            <OAuthConnectButton input={{ providerId: signin.providerId, scopes: signin.scopes, shared: signin.shared, returnTo }} providerName={provider} testId="connect-from-call">
              {t("console.connectProvider", { provider })}
            </OAuthConnectButton>
          )}
        </div>
      )}
    </Notice>
  );
}

/** A tool limited to regions the caller's account is not in (`region_restricted`): nothing to do here but say where it is set. */
export function RegionNotice() {
  const { t } = useI18n();
  return (
    <Notice tone="warn" title={t("console.regionTitle")} testId="region-restricted">
      {t("console.regionBody")}{" "}
      <Link href="/members#region" className="font-medium underline">
        {t("console.regionWhere")}
      </Link>
    </Notice>
  );
}

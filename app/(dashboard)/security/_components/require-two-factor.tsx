"use client";

import { useId } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { formatCount, formatZonedDateTime } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { accountSecurityQueryKey, fetchAccountSecurity, fetchTwoFactorStatus, setRequireTwoFactor, twoFactorQueryKey } from "@/lib/dashboard/two-factor";

/** The owner's switch: every member signs in with a second factor. Only an owner who uses it may turn it on. */
export function RequireTwoFactor({ canEdit }: { canEdit: boolean }) {
  const { t, locale } = useI18n();
  const { timeZone } = useTimeZone();
  const id = useId();
  const queryClient = useQueryClient();
  const security = useQuery({ queryKey: accountSecurityQueryKey, queryFn: ({ signal }) => fetchAccountSecurity(signal) });
  const own = useQuery({ queryKey: twoFactorQueryKey, queryFn: ({ signal }) => fetchTwoFactorStatus(signal) });
  const save = useMutation({ mutationFn: setRequireTwoFactor, onSuccess: (saved) => queryClient.setQueryData(accountSecurityQueryKey, saved) });

  const data = security.data;
  const ownOff = own.data !== undefined && !own.data.enabled;
  // Turning it off stays possible; turning it on needs the owner's own second factor.
  const disabled = !canEdit || save.isPending || !data || (!data.require_two_factor && ownOff);

  return (
    <section aria-labelledby="require-heading" className="space-y-3">
      <div>
        <h2 id="require-heading" className="text-base font-semibold text-zinc-900">
          {t("twoFactor.requireTitle")}
        </h2>
        <p className="mt-1 text-sm text-zinc-500">{t("twoFactor.requireBody")}</p>
      </div>
      {!canEdit && <Notice tone="info">{t("twoFactor.requireOwnerOnly")}</Notice>}
      {security.isPending ? (
        <LoadingBlock label={t("twoFactor.loading")} rows={1} />
      ) : security.isError ? (
        <ErrorState title={t("twoFactor.errorTitle")} message={security.error.message} retryLabel={t("common.retry")} onRetry={() => void security.refetch()} />
      ) : (
        <Card className="space-y-3 p-5">
          <label htmlFor={id} className="flex items-start gap-3">
            <input
              id={id}
              type="checkbox"
              className="mt-0.5 size-4 rounded border-zinc-300 text-indigo-600 disabled:opacity-50"
              checked={data!.require_two_factor}
              disabled={disabled}
              onChange={(e) => save.mutate(e.target.checked)}
            />
            <span className="text-sm">
              <span className="font-medium text-zinc-900">{t("twoFactor.requireToggle")}</span>
              {data!.required_since && (
                <span className="mt-0.5 block text-zinc-500">{t("twoFactor.requiredSince", { date: formatZonedDateTime(data!.required_since, timeZone, locale) })}</span>
              )}
            </span>
          </label>
          {canEdit && !data!.require_two_factor && ownOff && <Notice tone="info">{t("twoFactor.requireNeedsOwn")}</Notice>}
          {data!.members_without_two_factor > 0 && (
            <p className="text-sm text-zinc-500" data-testid="members-without-two-factor">
              {t("twoFactor.requireMissing", { count: formatCount(data!.members_without_two_factor, locale) })}
            </p>
          )}
          {save.isError && <Notice tone="error">{save.error.message}</Notice>}
        </Card>
      )}
    </section>
  );
}

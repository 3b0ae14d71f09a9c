"use client";

import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useIsFetching, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { LoadingBlock } from "@/components/ui/states";
import { accountRegionQueryKey, fetchAccountRegion, setAccountRegion } from "@/lib/dashboard/team";

/**
 * Where the account calls from (docs/connections.md, Region). Owners set or clear it; the code is
 * checked by the API alone, whose message is shown under the field. The Console's
 * region_restricted notice links here (`#region`).
 */
export function RegionCard({ canManage }: { canManage: boolean }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const ids = { input: useId(), error: useId() };
  // null: untouched, so the field shows the saved region.
  const [draft, setDraft] = useState<string | null>(null);
  const query = useQuery({ queryKey: accountRegionQueryKey, queryFn: ({ signal }) => fetchAccountRegion(signal) });
  const save = useMutation({
    mutationFn: setAccountRegion,
    onSuccess: (saved) => {
      queryClient.setQueryData(accountRegionQueryKey, saved);
      setDraft(null);
    },
  });

  // Opened as /members#region (the Console's notice): the tables above load after the browser has
  // scrolled to the card and push it down, so scroll again once the page's queries have settled.
  const fetching = useIsFetching();
  const settled = query.isSuccess && fetching === 0;
  const scrolled = useRef(false);
  useEffect(() => {
    if (!settled || scrolled.current) return;
    scrolled.current = true;
    if (window.location.hash === "#region") document.getElementById("region")?.scrollIntoView();
  }, [settled]);

  const current = query.data?.region ?? null;
  const value = draft ?? current ?? "";

  function submit(event: FormEvent) {
    event.preventDefault();
    if (value.trim()) save.mutate(value.trim());
  }

  return (
    <Card id="region" className="scroll-mt-20 p-5" data-testid="account-region">
      <h2 className="text-sm font-semibold text-zinc-900">{t("members.regionTitle")}</h2>
      <p className="mt-1 text-sm text-zinc-500">{t("members.regionBody")}</p>
      {query.isPending ? (
        <div className="mt-4">
          <LoadingBlock label={t("members.regionLoading")} rows={1} />
        </div>
      ) : query.isError ? (
        <div className="mt-4">
          <ErrorState title={t("members.regionError")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
        </div>
      ) : (
        <>
          <p className="mt-4 text-sm text-zinc-600">
            {t("members.regionCurrent")}{" "}
            {current ? (
              <code className="break-all rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-zinc-900" data-testid="account-region-value">
                {current}
              </code>
            ) : (
              <span className="font-medium text-zinc-900" data-testid="account-region-value">
                {t("members.regionNotSet")}
              </span>
            )}
          </p>
          {canManage && (
            <form onSubmit={submit} className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end" data-testid="account-region-form">
              <div className="min-w-0 sm:w-64">
                <FieldLabel htmlFor={ids.input} hint={t("members.regionHint")}>
                  {t("members.regionLabel")}
                </FieldLabel>
                <TextInput
                  id={ids.input}
                  autoComplete="off"
                  spellCheck={false}
                  maxLength={64}
                  value={value}
                  onChange={(e) => {
                    setDraft(e.target.value);
                    save.reset();
                  }}
                  placeholder="eu"
                  className="font-mono"
                  invalid={save.isError}
                  aria-describedby={save.isError ? ids.error : undefined}
                />
              </div>
              <div className="flex gap-2">
                <Button type="submit" variant="primary" disabled={save.isPending || !value.trim() || value.trim() === current}>
                  {save.isPending ? t("members.saving") : t("members.regionSave")}
                </Button>
                {current && (
                  <Button onClick={() => save.mutate(null)} disabled={save.isPending}>
                    {t("members.regionClear")}
                  </Button>
                )}
              </div>
            </form>
          )}
          {save.isError && (
            <p id={ids.error} role="alert" className="mt-2 text-sm text-red-700" data-testid="account-region-error">
              {save.error.message}
            </p>
          )}
        </>
      )}
    </Card>
  );
}

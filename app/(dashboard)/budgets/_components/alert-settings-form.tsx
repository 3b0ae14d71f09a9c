"use client";

import { useEffect, useId, useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { alertSettingsQueryKey, fetchAlertSettings, saveAlertSettings, type AlertSettings } from "@/lib/dashboard/alerts";

const CREDITS = /^\d{1,14}(\.\d{1,6})?$/;

/** The form's text back to the API's values, or which field is wrong. */
function parse(lowBalance: string, percents: string): { ok: true; value: { low_balance_credits: number | null; budget_percents: number[] } } | { ok: false; field: "low" | "percents" } {
  const low = lowBalance.trim();
  if (low !== "" && !CREDITS.test(low)) return { ok: false, field: "low" };
  const parts = percents.split(",").map((p) => p.trim()).filter(Boolean);
  if (parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 100)) return { ok: false, field: "percents" };
  return { ok: true, value: { low_balance_credits: low === "" ? null : Number(low), budget_percents: parts.map(Number) } };
}

function SettingsForm({ settings, canEdit }: { settings: AlertSettings; canEdit: boolean }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const lowId = useId();
  const percentsId = useId();
  const [low, setLow] = useState(settings.low_balance_credits === null ? "" : String(settings.low_balance_credits));
  const [percents, setPercents] = useState(settings.budget_percents.join(", "));
  const [invalid, setInvalid] = useState<"low" | "percents" | null>(null);
  const save = useMutation({
    mutationFn: saveAlertSettings,
    onSuccess: (saved) => {
      setPercents(saved.budget_percents.join(", "));
      queryClient.setQueryData(alertSettingsQueryKey, saved);
    },
  });

  useEffect(() => {
    if (!save.isSuccess) return;
    const timer = setTimeout(() => save.reset(), 2500);
    return () => clearTimeout(timer);
  }, [save]);

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = parse(low, percents);
    if (!parsed.ok) return setInvalid(parsed.field);
    setInvalid(null);
    save.mutate(parsed.value);
  }

  return (
    <form onSubmit={submit} className="space-y-4" data-testid="alert-settings-form">
      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <FieldLabel htmlFor={lowId} hint={t("alerts.lowBalanceHint")}>
            {t("alerts.lowBalance")}
          </FieldLabel>
          <TextInput id={lowId} inputMode="decimal" value={low} onChange={(e) => setLow(e.target.value)} placeholder={t("alerts.lowBalancePlaceholder")} disabled={!canEdit} invalid={invalid === "low"} />
        </div>
        <div>
          <FieldLabel htmlFor={percentsId} hint={t("alerts.budgetPercentsHint")}>
            {t("alerts.budgetPercents")}
          </FieldLabel>
          <TextInput id={percentsId} value={percents} onChange={(e) => setPercents(e.target.value)} placeholder={t("alerts.budgetPercentsPlaceholder")} disabled={!canEdit} invalid={invalid === "percents"} />
        </div>
      </div>
      {invalid && <Notice tone="error">{t(invalid === "low" ? "alerts.invalidLowBalance" : "alerts.invalidPercents")}</Notice>}
      {save.isError && <Notice tone="error">{save.error.message}</Notice>}
      {canEdit && (
        <div className="flex items-center gap-3">
          <Button type="submit" variant="primary" disabled={save.isPending}>
            {save.isPending ? t("alerts.saving") : t("alerts.save")}
          </Button>
          {save.isSuccess && (
            <span className="text-sm text-emerald-700" role="status">
              {t("alerts.saved")}
            </span>
          )}
        </div>
      )}
    </form>
  );
}

/** Low-balance and budget-percent thresholds; read-only for members and support users. */
export function AlertSettingsForm({ canEdit }: { canEdit: boolean }) {
  const { t } = useI18n();
  const query = useQuery({ queryKey: alertSettingsQueryKey, queryFn: ({ signal }) => fetchAlertSettings(signal) });
  return (
    <section aria-labelledby="alerts-heading" className="space-y-3">
      <div>
        <h2 id="alerts-heading" className="text-base font-semibold text-zinc-900">
          {t("alerts.title")}
        </h2>
        <p className="mt-1 text-sm text-zinc-500">{t("alerts.body")}</p>
      </div>
      {!canEdit && <Notice tone="info">{t("budgetsPage.ownerOnly")}</Notice>}
      {query.isPending ? (
        <LoadingBlock label={t("alerts.loading")} rows={2} />
      ) : query.isError ? (
        <ErrorState title={t("alerts.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : (
        <Card className="p-5">
          <SettingsForm key={query.data.updated_at ?? "defaults"} settings={query.data} canEdit={canEdit} />
        </Card>
      )}
    </section>
  );
}

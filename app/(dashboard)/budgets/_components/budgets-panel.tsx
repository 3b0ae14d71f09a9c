"use client";

import { useId, useState, type FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, Select, TextInput } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { apiKeysQueryKey, fetchApiKeys } from "@/lib/dashboard/api-keys";
import { budgetScopeLabel, budgetsQueryKey, fetchBudgets, removeBudget, saveBudget, type BudgetItem, type SetBudgetBody } from "@/lib/dashboard/budgets";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import type { MessageKey } from "@/lib/dashboard/i18n";
import { BudgetMeter } from "./budget-meter";

const periods = ["day", "week", "month", "none"] as const;
const periodLabel: Record<(typeof periods)[number], MessageKey> = { day: "budgets.periodDay", week: "budgets.periodWeek", month: "budgets.periodMonth", none: "budgets.periodNone" };

interface Draft {
  scope: SetBudgetBody["scope"];
  scopeId: string;
  limit: string;
  period: SetBudgetBody["period"];
  timeZone: string;
}

function BudgetForm({ draft, setDraft }: { draft: Draft; setDraft: (d: Draft) => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const ids = { scope: useId(), key: useId(), client: useId(), limit: useId(), period: useId(), tz: useId() };
  const keys = useQuery({ queryKey: apiKeysQueryKey, queryFn: ({ signal }) => fetchApiKeys(signal) });
  const save = useMutation({
    mutationFn: () =>
      saveBudget({
        scope: draft.scope,
        ...(draft.scope === "account" ? {} : { scope_id: draft.scopeId.trim() }),
        limit_credits: draft.limit.trim(),
        period: draft.period,
        time_zone: draft.timeZone.trim() || "UTC",
      }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: budgetsQueryKey }),
  });
  const valid = /^\d+(\.\d{1,6})?$/.test(draft.limit.trim()) && (draft.scope === "account" || draft.scopeId.trim() !== "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) save.mutate();
  };
  const activeKeys = (keys.data ?? []).filter((k) => !k.revoked_at);
  return (
    <Card className="p-5">
      <form onSubmit={submit} className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3 lg:items-end" data-testid="budget-form">
        <div>
          <FieldLabel htmlFor={ids.scope}>{t("budgets.scope")}</FieldLabel>
          <Select id={ids.scope} value={draft.scope} onChange={(e) => setDraft({ ...draft, scope: e.target.value as Draft["scope"], scopeId: "" })}>
            <option value="account">{t("budgets.scopeAccount")}</option>
            <option value="api_key">{t("budgets.scopeKey")}</option>
            <option value="oauth_client">{t("budgets.scopeClient")}</option>
          </Select>
        </div>
        {draft.scope === "api_key" && (
          <div>
            <FieldLabel htmlFor={ids.key}>{t("budgets.key")}</FieldLabel>
            <Select id={ids.key} value={draft.scopeId} onChange={(e) => setDraft({ ...draft, scopeId: e.target.value })}>
              <option value="">{t("budgets.chooseKey")}</option>
              {activeKeys.map((k) => (
                <option key={k.api_key_id} value={k.api_key_id}>
                  {k.name} ({k.prefix}…)
                </option>
              ))}
            </Select>
          </div>
        )}
        {draft.scope === "oauth_client" && (
          <div>
            <FieldLabel htmlFor={ids.client}>{t("budgets.client")}</FieldLabel>
            <TextInput id={ids.client} value={draft.scopeId} maxLength={200} placeholder="cli_…" onChange={(e) => setDraft({ ...draft, scopeId: e.target.value })} />
          </div>
        )}
        <div>
          <FieldLabel htmlFor={ids.limit}>{t("budgets.limit")}</FieldLabel>
          <TextInput id={ids.limit} inputMode="decimal" value={draft.limit} placeholder="100" onChange={(e) => setDraft({ ...draft, limit: e.target.value })} invalid={draft.limit !== "" && !/^\d+(\.\d{1,6})?$/.test(draft.limit.trim())} />
        </div>
        <div>
          <FieldLabel htmlFor={ids.period}>{t("budgets.period")}</FieldLabel>
          <Select id={ids.period} value={draft.period} onChange={(e) => setDraft({ ...draft, period: e.target.value as Draft["period"] })}>
            {periods.map((p) => (
              <option key={p} value={p}>
                {t(periodLabel[p])}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <FieldLabel htmlFor={ids.tz} hint={t("budgets.timeZoneHint")}>
            {t("budgets.timeZone")}
          </FieldLabel>
          <TextInput id={ids.tz} value={draft.timeZone} maxLength={64} onChange={(e) => setDraft({ ...draft, timeZone: e.target.value })} disabled={draft.period === "none"} />
        </div>
        <Button type="submit" variant="primary" disabled={!valid || save.isPending}>
          {save.isPending ? t("budgets.saving") : t("budgets.save")}
        </Button>
      </form>
      {save.isError && (
        <div className="mt-3">
          <Notice tone="error">{save.error.message}</Notice>
        </div>
      )}
      {save.isSuccess && !save.isPending && (
        <div className="mt-3">
          <Notice tone="success" testId="budget-saved">
            {t("budgets.saved")}
          </Notice>
        </div>
      )}
    </Card>
  );
}

/** The account's budgets with their period's spend, and (for the owner) the form that sets them. */
export function BudgetsPanel({ canEdit }: { canEdit: boolean }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const queryClient = useQueryClient();
  const budgets = useQuery({ queryKey: budgetsQueryKey, queryFn: ({ signal }) => fetchBudgets(signal) });
  const scopeLabel = (b: BudgetItem) => budgetScopeLabel(t, b);
  const [draft, setDraft] = useState<Draft>({ scope: "account", scopeId: "", limit: "", period: "month", timeZone: "UTC" });
  const [removing, setRemoving] = useState<BudgetItem | null>(null);
  const remove = useMutation({
    mutationFn: (b: BudgetItem) => removeBudget(b.budget_id),
    onSuccess: () => {
      setRemoving(null);
      void queryClient.invalidateQueries({ queryKey: budgetsQueryKey });
    },
  });

  return (
    <section aria-labelledby="budgets-heading" className="space-y-3" data-testid="budgets-section">
      <div>
        <h2 id="budgets-heading" className="text-sm font-semibold text-zinc-900">
          {t("budgets.title")}
        </h2>
        <p className="mt-1 text-xs text-zinc-500">{t("budgets.subtitle")}</p>
      </div>
      {canEdit ? <BudgetForm draft={draft} setDraft={setDraft} /> : <Notice tone="info">{t("budgets.ownerOnly")}</Notice>}
      {budgets.isPending ? (
        <LoadingBlock label={t("budgets.loading")} rows={2} />
      ) : budgets.isError ? (
        <ErrorState title={t("budgets.errorTitle")} message={budgets.error.message} retryLabel={t("common.retry")} onRetry={() => void budgets.refetch()} />
      ) : budgets.data.length === 0 ? (
        <EmptyState title={t("budgets.emptyTitle")} body={t("budgets.emptyBody")} testId="budgets-empty" />
      ) : (
        <ul className="grid gap-3 lg:grid-cols-2">
          {budgets.data.map((b) => (
            <li key={b.budget_id}>
              <Card className="space-y-3 p-4" data-testid="budget-row">
                <div className="flex flex-wrap items-start justify-between gap-2">
                  <div className="min-w-0">
                    <p className="truncate font-medium text-zinc-900">{scopeLabel(b)}</p>
                    <p className="text-xs text-zinc-500">
                      {t(periodLabel[b.period])}
                      {b.period !== "none" && <> · {b.time_zone}</>} · <code className="font-mono">{b.budget_id}</code>
                    </p>
                  </div>
                  <div className="flex items-center gap-2">
                    {b.used_percent >= 100 && <Badge tone="red">{t("budgets.reached")}</Badge>}
                    {canEdit && (
                      <>
                        <Button
                          size="sm"
                          onClick={() => setDraft({ scope: b.scope, scopeId: b.scope_id ?? "", limit: String(b.limit_credits), period: b.period, timeZone: b.time_zone })}
                          aria-label={t("budgets.editNamed", { name: scopeLabel(b) })}
                        >
                          {t("budgets.edit")}
                        </Button>
                        <Button size="sm" variant="danger" onClick={() => setRemoving(b)} aria-label={t("budgets.removeNamed", { name: scopeLabel(b) })}>
                          {t("budgets.remove")}
                        </Button>
                      </>
                    )}
                  </div>
                </div>
                <BudgetMeter budget={b} timeZone={tz.timeZone} />
              </Card>
            </li>
          ))}
        </ul>
      )}
      <Dialog
        open={removing !== null}
        onClose={() => {
          remove.reset();
          setRemoving(null);
        }}
        title={t("budgets.removeTitle")}
        closeLabel={t("common.close")}
        testId="remove-budget-dialog"
        footer={
          <>
            <Button onClick={() => setRemoving(null)}>{t("common.cancel")}</Button>
            <Button variant="primary" className="bg-red-600 hover:bg-red-500" onClick={() => removing && remove.mutate(removing)} disabled={remove.isPending}>
              {t("budgets.confirmRemove")}
            </Button>
          </>
        }
      >
        <p className="text-sm text-zinc-600">{removing && t("budgets.removeBody", { name: scopeLabel(removing) })}</p>
        {remove.isError && <Notice tone="error">{remove.error.message}</Notice>}
      </Dialog>
    </section>
  );
}

"use client";

import { useMemo, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ToolAccessBadges } from "@/components/catalog/access-badges";
import { PriceBadge, ToolStats } from "@/components/catalog/tool-meta";
import { PlayIcon, ShieldCheckIcon } from "@/components/ui/action-icons";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Dialog } from "@/components/ui/dialog";
import { Notice } from "@/components/ui/states";
import { balanceQueryKey } from "@/lib/dashboard/balance";
import { callTool, probe, type CallResponse, type ProbeResponse, type ValidationDetail } from "@/lib/dashboard/console-api";
import { listPrice, type CapabilityResult } from "@/lib/dashboard/discover";
import { formatCreditsUnit } from "@/lib/dashboard/format";
import { KeyRequestError } from "@/lib/dashboard/key-client";
import { extraParameters, fieldsOf, parameterOfError, parametersFromValues, parseParametersJson, valuesFromParameters, type FormValues } from "@/lib/dashboard/param-form";
import { dashboardSessionId, newIdempotencyKey } from "@/lib/dashboard/session-id";
import { CallOptions, DEFAULT_MAX_RESPONSE_SIZE, respondWithValue, type CallOptionsState } from "./call-options";
import { BudgetHeadroom } from "./budget-text";
import { CallResult } from "./call-result";
import { ParameterEditor, type EditorMode } from "./parameter-editor";
import { ProbeResult } from "./probe-result";

interface CallOutcome {
  status: number;
  body: CallResponse;
}

export function Workbench({ tool, apiKey, searchId, userId, onKeyRejected }: { tool: CapabilityResult; apiKey: string; searchId: string | null; userId: string; onKeyRejected: () => void }) {
  const { t, locale } = useI18n();
  const queryClient = useQueryClient();
  const fields = useMemo(() => fieldsOf(tool.params), [tool.params]);
  const sample = useMemo(() => tool.examples?.sample_parameters ?? {}, [tool.examples]);

  const [mode, setMode] = useState<EditorMode>("form");
  const [values, setValues] = useState<FormValues>(() => valuesFromParameters(fields, sample));
  const [extras, setExtras] = useState<Record<string, unknown>>(() => extraParameters(fields, sample));
  const [jsonText, setJsonText] = useState(() => JSON.stringify(sample, null, 2));
  const [options, setOptions] = useState<CallOptionsState>({ respondWith: "full", fields: "", maxResponseSize: DEFAULT_MAX_RESPONSE_SIZE });
  const [confirming, setConfirming] = useState(false);
  const [issues, setIssues] = useState<ValidationDetail[]>([]);

  // The parameters as they would be sent now, from whichever editor is showing.
  const current = useMemo(() => {
    if (mode === "json") {
      const parsed = parseParametersJson(jsonText);
      return parsed.ok ? { parameters: parsed.parameters, fieldErrors: {}, jsonError: null } : { parameters: null, fieldErrors: {}, jsonError: parsed.error };
    }
    const converted = parametersFromValues(fields, values, extras);
    return { parameters: Object.keys(converted.errors).length ? null : converted.parameters, fieldErrors: converted.errors, jsonError: null };
  }, [mode, jsonText, fields, values, extras]);
  const parametersKey = current.parameters ? JSON.stringify(current.parameters) : null;

  const probeMutation = useMutation({
    mutationFn: (parameters: Record<string, unknown>) => probe(apiKey, tool.tool_id, parameters),
    onSuccess: (result: ProbeResponse) => setIssues(result.schema?.details ?? []),
  });
  const probedKey = probeMutation.isSuccess ? JSON.stringify(probeMutation.variables) : null;

  const callMutation = useMutation({
    mutationFn: (parameters: Record<string, unknown>) =>
      callTool(apiKey, {
        toolId: tool.tool_id,
        parameters,
        sessionId: dashboardSessionId(),
        searchId,
        maxResponseSize: options.maxResponseSize,
        respondWith: respondWithValue(options),
        idempotencyKey: newIdempotencyKey(),
      }),
    onSuccess: (outcome: CallOutcome) => {
      // A budget's refusal is not a problem with the parameters: the Call result says it.
      setIssues((outcome.body.details ?? []).filter((d) => d.type !== "budget_exceeded"));
      // The balance changed (or may have): Overview and the audit pages must not show a stale one.
      void queryClient.invalidateQueries({ queryKey: balanceQueryKey });
      void queryClient.invalidateQueries({ queryKey: ["usage"] });
      void queryClient.invalidateQueries({ queryKey: ["ledger"] });
    },
  });

  const keyError = [probeMutation.error, callMutation.error].find((e): e is KeyRequestError => e instanceof KeyRequestError && e.keyRejected);

  function switchMode(next: EditorMode) {
    if (next === mode) return;
    if (next === "json") {
      setJsonText(JSON.stringify(current.parameters ?? parametersFromValues(fields, values, extras).parameters, null, 2));
      setMode("json");
      return;
    }
    const parsed = parseParametersJson(jsonText);
    if (!parsed.ok) return; // The editor shows why; stay until the JSON reads.
    setValues(valuesFromParameters(fields, parsed.parameters));
    setExtras(extraParameters(fields, parsed.parameters));
    setMode("form");
  }

  function resetTo(parameters: Record<string, unknown>) {
    setValues(valuesFromParameters(fields, parameters));
    setExtras(extraParameters(fields, parameters));
    setJsonText(JSON.stringify(parameters, null, 2));
    setIssues([]);
    probeMutation.reset();
  }

  // What a Call could cost, for the confirm step: the Probe quote for exactly these parameters
  // when there is one, else the billing rule's list price.
  const price = listPrice(tool);
  const quote = probedKey !== null && probedKey === parametersKey ? probeMutation.data?.quote : undefined;
  const mayCost = quote ? quote.estimate_credits > 0 || !quote.exact : !price.free;

  function requestCall() {
    if (!current.parameters) return;
    if (mayCost) setConfirming(true);
    else callMutation.mutate(current.parameters);
  }

  return (
    <div className="space-y-6">
      <Card className="p-4 sm:p-5">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
          <div className="min-w-0">
            <h2 className="text-lg font-semibold text-zinc-900" data-testid="console-tool-name">
              {tool.name}
            </h2>
            <p className="mt-0.5 flex flex-wrap items-center gap-x-2 text-xs text-zinc-500">
              <span className="inline-flex items-center gap-0.5">
                <code className="font-mono text-zinc-700">{tool.tool_id}</code>
                <CopyButton value={tool.tool_id} />
              </span>
              <span>
                {t("tool.by")} <span className="font-medium text-zinc-700">{tool.provider_name}</span>
              </span>
              {searchId && (
                <span className="inline-flex items-center gap-1">
                  search_id <code className="font-mono">{searchId}</code>
                </span>
              )}
            </p>
            <ToolAccessBadges tool={tool} className="mt-2" />
          </div>
          <PriceBadge rule={tool.billing_rule} />
        </div>
        <p className="mt-3 text-sm leading-6 text-zinc-600">{tool.description}</p>
        <div className="mt-3">
          <ToolStats stats={tool.stats} />
        </div>
      </Card>

      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-4">
          <ParameterEditor
            tool={tool}
            fields={fields}
            mode={mode}
            onMode={switchMode}
            values={values}
            onValue={(name, value) => {
              setValues((v) => ({ ...v, [name]: value }));
              setIssues((list) => list.filter((issue) => parameterOfError(issue.loc) !== name));
            }}
            extras={extras}
            jsonText={jsonText}
            onJsonText={setJsonText}
            jsonError={current.jsonError}
            fieldErrors={current.fieldErrors}
            issues={issues}
            parameters={current.parameters}
            onReset={() => resetTo(sample)}
            onClear={() => resetTo({})}
            hasSample={Object.keys(sample).length > 0}
          />
          <CallOptions value={options} onChange={setOptions} />
          {keyError && (
            <Notice tone="error" title={t("keyPicker.rejectedTitle")}>
              <p>{keyError.message}</p>
              <Button size="sm" className="mt-2" onClick={onKeyRejected}>
                {t("keyPicker.forgetAndPick")}
              </Button>
            </Notice>
          )}
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => current.parameters && probeMutation.mutate(current.parameters)} disabled={!current.parameters || probeMutation.isPending}>
              <ShieldCheckIcon width={16} height={16} />
              {probeMutation.isPending ? t("console.probing") : t("console.probe")}
            </Button>
            <Button variant="primary" onClick={requestCall} disabled={!current.parameters || callMutation.isPending}>
              <PlayIcon width={16} height={16} />
              {callMutation.isPending ? t("console.calling") : t("console.call")}
            </Button>
            <p className="basis-full text-xs text-zinc-500">{t("console.probeIsFree")}</p>
          </div>
        </div>

        <div className="min-w-0 space-y-4">
          {probeMutation.isError && !(probeMutation.error instanceof KeyRequestError && probeMutation.error.keyRejected) && (
            <Notice tone="error" title={t("console.probeFailed")}>
              {probeMutation.error.message}
            </Notice>
          )}
          {probeMutation.data && <ProbeResult result={probeMutation.data} stale={probedKey !== parametersKey} connection={tool.requires_connection ?? null} currentUserId={userId} />}
          {callMutation.isError && !(callMutation.error instanceof KeyRequestError && callMutation.error.keyRejected) && (
            <Notice tone="error" title={t("console.callFailed")}>
              {callMutation.error.message}
            </Notice>
          )}
          {callMutation.data && <CallResult status={callMutation.data.status} body={callMutation.data.body} connection={tool.requires_connection ?? null} currentUserId={userId} />}
          {!probeMutation.data && !callMutation.data && !probeMutation.isError && !callMutation.isError && (
            <Card className="p-5 text-sm text-zinc-500">{t("console.resultsHere")}</Card>
          )}
        </div>
      </div>

      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={t("console.confirmTitle")}
        closeLabel={t("common.close")}
        testId="confirm-call"
        footer={
          <>
            <Button onClick={() => setConfirming(false)}>{t("common.cancel")}</Button>
            <Button
              variant="primary"
              onClick={() => {
                setConfirming(false);
                if (current.parameters) callMutation.mutate(current.parameters);
              }}
            >
              {t("console.confirmCall")}
            </Button>
          </>
        }
      >
        <div className="space-y-3 text-sm text-zinc-600">
          <p>
            {quote
              ? t(quote.exact ? "console.confirmExact" : "console.confirmEstimate", { amount: formatCreditsUnit(quote.estimate_credits, locale, t), basis: quote.basis })
              : t("console.confirmList", { price: price.variable ? t("console.variablePrice") : formatCreditsUnit(price.amount, locale, t) })}
          </p>
          <p>{t("console.confirmOnlySuccess")}</p>
          {quote?.budget && <BudgetHeadroom budget={quote.budget} testId="confirm-budget" />}
          {!quote && <p className="text-xs text-zinc-500">{t("console.confirmProbeHint")}</p>}
        </div>
      </Dialog>
    </div>
  );
}

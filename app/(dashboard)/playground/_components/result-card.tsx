"use client";

import { useId, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ToolAccessBadges } from "@/components/catalog/access-badges";
import { OneOfRequiredNote, ParamsList, PriceBadge, ToolStats } from "@/components/catalog/tool-meta";
import { ArrowRightIcon, ChevronDownIcon } from "@/components/ui/action-icons";
import { Badge, type Tone } from "@/components/ui/badge";
import { ButtonLink, Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { JsonViewer } from "@/components/ui/json-viewer";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { inspect, type CapabilityResult, type RoutingCard } from "@/lib/dashboard/discover";
import { formatDateTime, formatPercent } from "@/lib/dashboard/format";
import { consoleHref } from "@/lib/dashboard/links";
import { dashboardSessionId } from "@/lib/dashboard/session-id";
import { useTimeZone } from "@/lib/dashboard/time-zone";

/** Inspect (`POST /tools/by-ids`, view=full) for one tool: its full schema, examples and price. */
function InspectDetails({ toolId, searchId, apiKey }: { toolId: string; searchId: string; apiKey: string }) {
  const { t, locale } = useI18n();
  const priceText = usePriceLine();
  const query = useQuery({
    queryKey: ["inspect", apiKey, toolId, locale, searchId],
    queryFn: ({ signal }) => inspect(apiKey, { toolIds: [toolId], lang: locale, searchId, sessionId: dashboardSessionId() }, signal),
    staleTime: 60_000,
  });
  if (query.isPending) return <LoadingBlock label={t("playground.inspecting")} rows={3} />;
  if (query.isError) return <Notice tone="error" title={t("playground.inspectError")}>{query.error.message}</Notice>;
  const tool = query.data.results[0];
  if (!tool) return <Notice tone="warn">{query.data.error_message ?? t("playground.inspectMissing")}</Notice>;
  return (
    <div className="space-y-4" data-testid="inspect-details">
      <div>
        <h4 className="mb-2 text-xs font-semibold uppercase tracking-wide text-zinc-500">{t("tool.parameters")}</h4>
        <ParamsList params={tool.params} />
      </div>
      <OneOfRequiredNote groups={tool.one_of_required} />
      {tool.examples?.sample_parameters && <JsonViewer value={tool.examples.sample_parameters} label={t("tool.sampleParameters")} maxHeight="max-h-64" />}
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="rounded-lg border border-zinc-200 p-3 text-xs">
          <p className="font-semibold text-zinc-700">{t("tool.pricing")}</p>
          <p className="mt-1 text-zinc-600">{priceText(tool)}</p>
          {tool.billing_rule && <pre className="mt-2 overflow-x-auto rounded bg-zinc-50 p-2 font-mono text-[11px] text-zinc-600">{JSON.stringify(tool.billing_rule)}</pre>}
        </div>
        <div className="rounded-lg border border-zinc-200 p-3 text-xs">
          <p className="font-semibold text-zinc-700">{t("tool.provider")}</p>
          <p className="mt-1 text-zinc-600">
            {tool.provider_name} <code className="font-mono text-zinc-500">({tool.provider_id})</code>
          </p>
          {tool.category && <p className="mt-1 text-zinc-500">{t("tool.category", { category: tool.category })}</p>}
        </div>
      </div>
    </div>
  );
}

const matchFields = ["name", "description", "params", "paramText", "examples", "category", "provider"] as const;

/** Why a result ranked where it did (`match` of view=full): the request's words per field, expansions, chains. */
function MatchLine({ match }: { match: NonNullable<CapabilityResult["match"]> }) {
  const { t } = useI18n();
  const fields = matchFields.filter((f) => (match.fields[f]?.length ?? 0) > 0);
  if (fields.length === 0 && !match.needed_by) return null;
  const expanded = new Set(match.expanded);
  return (
    <div className="mt-2 text-xs text-zinc-500" data-testid="match">
      <span className="font-medium text-zinc-600">{t("playground.matchTitle")}:</span>{" "}
      {fields.map((f, i) => (
        <span key={f}>
          {i > 0 && " · "}
          {t(`playground.matchField.${f}`)}{" "}
          {match.fields[f]!.map((word) => (
            <mark key={word} className={`mx-0.5 rounded px-1 ${expanded.has(word) ? "bg-sky-50 text-sky-800" : "bg-amber-50 text-amber-900"}`} title={expanded.has(word) ? t("playground.matchExpanded") : undefined}>
              {word}
            </mark>
          ))}
        </span>
      ))}
      {match.needed_by && (
        <span>
          {fields.length > 0 && " · "}
          {t("playground.matchNeededBy", { tool: match.needed_by })}
        </span>
      )}
    </div>
  );
}

function usePriceLine() {
  const { t } = useI18n();
  return (tool: CapabilityResult) => (tool.expected_cost ? t("tool.expectedCost", { text: tool.expected_cost }) : t("tool.noExpectedCost"));
}

export function ResultCard({ rank, result, searchId, apiKey }: { rank: number; result: CapabilityResult; searchId: string; apiKey: string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  return (
    <Card className="p-4 sm:p-5" data-testid="result-card" data-tool-id={result.tool_id}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex min-w-0 gap-3">
          <span className="mt-0.5 flex size-7 shrink-0 items-center justify-center rounded-full bg-zinc-100 text-xs font-semibold tabular-nums text-zinc-600" aria-label={t("playground.rank", { rank })}>
            {rank}
          </span>
          <div className="min-w-0">
            <h3 className="text-base font-semibold text-zinc-900">{result.name}</h3>
            <p className="mt-0.5 flex min-w-0 flex-wrap items-center gap-x-2 text-xs text-zinc-500">
              <span className="inline-flex min-w-0 items-center gap-0.5">
                <code className="truncate font-mono text-zinc-700">{result.tool_id}</code>
                <CopyButton value={result.tool_id} />
              </span>
              <span>
                {t("tool.by")} <span className="font-medium text-zinc-700">{result.provider_name}</span>
              </span>
            </p>
            <ToolAccessBadges tool={result} className="mt-1.5" />
          </div>
        </div>
        <div className="shrink-0 sm:max-w-[45%] sm:text-right">
          <PriceBadge rule={result.billing_rule} />
        </div>
      </div>
      <p className="mt-3 text-sm leading-6 text-zinc-600">{result.description}</p>
      {result.match && <MatchLine match={result.match} />}
      <div className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <div className="space-y-1">
          <ToolStats stats={result.stats} />
          {result.expected_cost && <p className="text-xs text-zinc-500">{t("tool.expectedCost", { text: result.expected_cost })}</p>}
        </div>
        <div className="flex flex-wrap gap-2">
          <Button size="sm" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen((o) => !o)}>
            <ChevronDownIcon width={16} height={16} className={open ? "rotate-180" : ""} />
            {open ? t("playground.hideSchema") : t("playground.showSchema")}
          </Button>
          <ButtonLink size="sm" variant="primary" href={consoleHref(result.tool_id, searchId)}>
            {t("playground.tryInConsole")}
            <ArrowRightIcon width={16} height={16} />
          </ButtonLink>
        </div>
      </div>
      <div id={detailsId} hidden={!open} className="mt-4 border-t border-zinc-100 pt-4">
        {open && <InspectDetails toolId={result.tool_id} searchId={searchId} apiKey={apiKey} />}
      </div>
    </Card>
  );
}

const costTones: Record<RoutingCard["cost_class"], Tone> = { free: "green", low: "indigo", medium: "amber", high: "red", variable: "amber" };

/** `view=routing`: the compact card an agent's router reads. */
export function RoutingResultCard({ rank, card, searchId }: { rank: number; card: RoutingCard; searchId: string }) {
  const { t, locale } = useI18n();
  const tz = useTimeZone();
  return (
    <Card className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between" data-testid="result-card" data-tool-id={card.tool_id}>
      <div className="flex min-w-0 gap-3">
        <span className="mt-0.5 flex size-7 shrink-0 items-center justify-center rounded-full bg-zinc-100 text-xs font-semibold tabular-nums text-zinc-600">{rank}</span>
        <div className="min-w-0">
          <p className="text-sm font-medium text-zinc-900">{card.capability}</p>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-500">
            <code className="font-mono text-zinc-700">{card.tool_id}</code>
            <Badge tone={costTones[card.cost_class]}>{t(`cost.${card.cost_class}`)}</Badge>
            <span>
              {t("tool.reliability")} {card.reliability == null ? t("tool.notMeasured") : formatPercent(card.reliability, locale)}
            </span>
            <span title={card.as_of_support}>{t("tool.asOf", { time: formatDateTime(card.as_of_support, tz.timeZone, { seconds: false }), zone: tz.timeZone })}</span>
          </p>
        </div>
      </div>
      <ButtonLink size="sm" variant="primary" href={consoleHref(card.tool_id, searchId)}>
        {t("playground.tryInConsole")}
        <ArrowRightIcon width={16} height={16} />
      </ButtonLink>
    </Card>
  );
}

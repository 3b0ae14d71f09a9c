"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import type { CapabilityParam, CapabilityResult } from "@/lib/dashboard/discover";
import { formatCredits, formatDuration, formatPercent } from "@/lib/dashboard/format";

type BillingRule = NonNullable<CapabilityResult["billing_rule"]>;

/** The billing rule in words: "Free", "0.5 credits per call", "0.1 credits per 1,000 characters of text"… */
export function usePriceText() {
  const { t, locale } = useI18n();
  return (rule: BillingRule | undefined): string => {
    if (!rule || rule.unit === "free" || rule.amount_credits === 0) return t("price.free");
    const amount = formatCredits(rule.amount_credits, locale);
    if (rule.unit === "call") return t("price.perCall", { amount, n: rule.amount_credits });
    const size = rule.unit_size && rule.unit_size > 1 ? `${formatCredits(rule.unit_size, locale)} ` : "";
    const param = rule.quantity_param ?? "";
    let text: string;
    switch (rule.quantity_from) {
      case "param_length":
        text = t("price.perLength", { amount, n: rule.amount_credits, size, param });
        break;
      case "param_value":
        text = t("price.perValue", { amount, n: rule.amount_credits, size, param });
        break;
      case "result_items":
        text = t("price.perResultItem", { amount, n: rule.amount_credits, size });
        break;
      default:
        text = t("price.perUnit", { amount, n: rule.amount_credits });
    }
    return rule.max_units ? `${text} ${t("price.upTo", { units: formatCredits(rule.max_units, locale) })}` : text;
  };
}

export function PriceBadge({ rule }: { rule: BillingRule | undefined }) {
  const priceText = usePriceText();
  const free = !rule || rule.unit === "free" || rule.amount_credits === 0;
  return (
    <Badge tone={free ? "green" : rule.unit === "call" ? "indigo" : "amber"} className="whitespace-normal" title={priceText(rule)}>
      {priceText(rule)}
    </Badge>
  );
}

/** Success rate and average time, or "not measured yet". */
export function ToolStats({ stats }: { stats: CapabilityResult["stats"] }) {
  const { t, locale } = useI18n();
  return (
    <dl className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-500">
      <div className="flex gap-1">
        <dt>{t("tool.successRate")}</dt>
        <dd className="font-medium tabular-nums text-zinc-700">{stats?.success_rate == null ? t("tool.notMeasured") : formatPercent(stats.success_rate, locale)}</dd>
      </div>
      <div className="flex gap-1">
        <dt>{t("tool.avgTime")}</dt>
        <dd className="font-medium tabular-nums text-zinc-700">{stats?.avg_execution_time_ms == null ? t("tool.notMeasured") : formatDuration(stats.avg_execution_time_ms, locale)}</dd>
      </div>
    </dl>
  );
}

function typeLabel(p: CapabilityParam): string {
  if (p.type === "array" && p.items) return `${p.items.type}[]`;
  return p.type;
}

/** The parameter schema as a readable list: name, type, required, description, allowed values, bounds. */
export function ParamsList({ params }: { params: CapabilityParam[] }) {
  const { t } = useI18n();
  if (params.length === 0) return <p className="text-sm text-zinc-500">{t("tool.noParams")}</p>;
  return (
    <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200">
      {params.map((p) => (
        <li key={p.name} className="px-3 py-2 text-sm">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <code className="font-mono text-xs font-semibold text-zinc-900">{p.name}</code>
            <span className="font-mono text-xs text-sky-700">{typeLabel(p)}</span>
            {p.required ? <Badge tone="red">{t("tool.required")}</Badge> : <span className="text-xs text-zinc-500">{t("tool.optional")}</span>}
            {p.default !== undefined && <span className="text-xs text-zinc-500">{t("tool.default", { value: JSON.stringify(p.default) })}</span>}
            {p.minimum !== undefined && <span className="text-xs text-zinc-500">≥ {p.minimum}</span>}
            {p.maximum !== undefined && <span className="text-xs text-zinc-500">≤ {p.maximum}</span>}
            {p.max_length !== undefined && <span className="text-xs text-zinc-500">{t("tool.maxLength", { n: p.max_length })}</span>}
          </div>
          {p.description && <p className="mt-0.5 text-xs text-zinc-600">{p.description}</p>}
          {(p.enum ?? p.items?.enum) && (
            <p className="mt-1 flex flex-wrap gap-1">
              {(p.enum ?? p.items?.enum ?? []).map((v) => (
                <code key={String(v)} className="rounded bg-zinc-100 px-1 font-mono text-[11px] text-zinc-700">
                  {JSON.stringify(v)}
                </code>
              ))}
            </p>
          )}
        </li>
      ))}
    </ul>
  );
}

/** Explains each `one_of_required` group: at least one of these must be given. */
export function OneOfRequiredNote({ groups, satisfied }: { groups: string[][] | undefined; satisfied?: boolean[] }) {
  const { t } = useI18n();
  if (!groups || groups.length === 0) return null;
  return (
    <div className="rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-xs text-sky-900" data-testid="one-of-required">
      <p className="font-semibold">{t("tool.oneOfTitle")}</p>
      <ul className="mt-1 space-y-0.5">
        {groups.map((group, i) => (
          <li key={group.join("|")} className="flex flex-wrap items-center gap-1">
            {satisfied && <span aria-hidden="true">{satisfied[i] ? "✓" : "•"}</span>}
            {t("tool.oneOfGroup")}{" "}
            {group.map((name, j) => (
              <span key={name}>
                <code className="rounded bg-white/70 px-1 font-mono">{name}</code>
                {j < group.length - 1 ? <span className="text-sky-700"> {t("tool.or")} </span> : null}
              </span>
            ))}
            {satisfied && <span className="sr-only">{satisfied[i] ? t("tool.oneOfMet") : t("tool.oneOfMissing")}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

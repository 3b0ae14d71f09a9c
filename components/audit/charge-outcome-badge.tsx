"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge, type Tone } from "@/components/ui/badge";
import { isChargeOutcome, type ChargeOutcome } from "@/lib/dashboard/audit-vocab";

const chargeOutcomeTones: Record<ChargeOutcome, Tone> = {
  charged: "indigo",
  included: "green",
  failed_not_charged: "neutral",
  failed_charged_review: "red",
};

/** A usage event's final charge classification (contract section 3), labelled in the UI language. */
export function ChargeOutcomeBadge({ outcome }: { outcome: string | null | undefined }) {
  const { t } = useI18n();
  if (!outcome) return <span className="text-zinc-500">—</span>;
  if (!isChargeOutcome(outcome)) return <Badge>{outcome}</Badge>;
  return (
    <Badge tone={chargeOutcomeTones[outcome]} title={outcome}>
      {t(`outcome.${outcome}`)}
    </Badge>
  );
}

export function SuccessBadge({ success }: { success: boolean | null | undefined }) {
  const { t } = useI18n();
  if (success === null || success === undefined) return <span className="text-zinc-500">—</span>;
  return <Badge tone={success ? "green" : "red"}>{success ? t("status.succeeded") : t("status.failed")}</Badge>;
}

export function ReasonCode({ code }: { code: string | null | undefined }) {
  if (!code) return <span className="text-zinc-500">—</span>;
  return <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[11px] text-zinc-700">{code}</code>;
}

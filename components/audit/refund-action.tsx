"use client";

import { useId, useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { FieldLabel, TextArea, TextInput } from "@/components/ui/form-controls";
import { Notice } from "@/components/ui/states";
import type { CallTrace } from "@/lib/dashboard/audit-api";
import { formatCreditsUnit } from "@/lib/dashboard/format";
import { type Refund, refundExecution } from "@/lib/dashboard/refunds";
import { credits, isCreditString } from "@/lib/money";

const REASON_MAX = 500;

/** What a refund needs to know of a Call: a lookup's Call trace, or a review-queue case shaped alike. */
export type Refundable = Pick<CallTrace, "execution_id"> & {
  execution: { settled_credits: number | null; refunded_credits: number } | null;
  usage_event: { charge_outcome: string } | null;
};

/**
 * Support's "Refund" on a failed but charged Call: amount (all that is left, by default) and a
 * reason, then a confirmation naming the account. The lookup and the review queue are reloaded
 * afterwards, so the refund row shows in the timeline and the case leaves the queue once settled.
 */
export function RefundAction({ call, accountId, onRefunded }: { call: Refundable; accountId: string; onRefunded: (refund: Refund) => void }) {
  const { t, locale } = useI18n();
  const queryClient = useQueryClient();
  const ids = { form: useId(), amount: useId(), reason: useId() };
  const settled = call.execution?.settled_credits ?? 0;
  const refunded = call.execution?.refunded_credits ?? 0;
  const left = credits(String(settled)).minus(String(refunded));
  const [open, setOpen] = useState(false);
  const [step, setStep] = useState<"form" | "confirm">("form");
  const [amount, setAmount] = useState("");
  const [reason, setReason] = useState("");
  const [checked, setChecked] = useState(false);

  const refund = useMutation({
    mutationFn: () => refundExecution(call.execution_id, { amount_credits: amount.trim(), reason: reason.trim() }),
    onSuccess: async (result) => {
      setOpen(false);
      onRefunded(result);
      await Promise.all([queryClient.invalidateQueries({ queryKey: ["lookup"] }), queryClient.invalidateQueries({ queryKey: ["review-queue"] })]);
    },
  });

  const unit = (value: number) => formatCreditsUnit(value, locale, t);
  const amountOk = isCreditString(amount.trim()) && credits(amount.trim()).gt(0) && credits(amount.trim()).lte(left);
  const reasonOk = reason.trim().length > 0 && reason.trim().length <= REASON_MAX;

  function start() {
    setAmount(left.toFixed());
    setReason("");
    setChecked(false);
    setStep("form");
    refund.reset();
    setOpen(true);
  }

  function review(event: FormEvent) {
    event.preventDefault();
    setChecked(true);
    if (amountOk && reasonOk) setStep("confirm");
  }

  if (call.usage_event?.charge_outcome !== "failed_charged_review" || left.lte(0)) return null;
  return (
    <>
      <Button size="sm" variant="danger" onClick={start} data-testid="refund-open">
        {t("refund.action")}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={t("refund.title")}
        description={t("refund.summary", { settled: unit(settled), refunded: unit(refunded), left: unit(left.toNumber()), account: accountId })}
        closeLabel={t("common.close")}
        testId="refund-dialog"
        footer={
          step === "form" ? (
            <>
              <Button onClick={() => setOpen(false)}>{t("common.cancel")}</Button>
              <Button type="submit" form={ids.form} variant="primary">
                {t("refund.review")}
              </Button>
            </>
          ) : (
            <>
              <Button onClick={() => setStep("form")} disabled={refund.isPending}>
                {t("refund.back")}
              </Button>
              <Button variant="primary" className="bg-red-600 hover:bg-red-500" onClick={() => refund.mutate()} disabled={refund.isPending}>
                {refund.isPending ? t("refund.refunding") : t("refund.confirm")}
              </Button>
            </>
          )
        }
      >
        {step === "form" ? (
          <form id={ids.form} onSubmit={review} noValidate className="space-y-4">
            <div>
              <FieldLabel htmlFor={ids.amount} hint={t("refund.amountHint", { left: unit(left.toNumber()) })}>
                {t("refund.amount")}
              </FieldLabel>
              <TextInput id={ids.amount} value={amount} onChange={(e) => setAmount(e.target.value)} inputMode="decimal" autoComplete="off" invalid={checked && !amountOk} />
              {checked && !amountOk && <p className="mt-1 text-xs text-red-700">{t("refund.invalidAmount", { left: unit(left.toNumber()) })}</p>}
            </div>
            <div>
              <FieldLabel htmlFor={ids.reason} hint={t("refund.reasonHint")}>
                {t("refund.reason")}
              </FieldLabel>
              <TextArea
                id={ids.reason}
                value={reason}
                onChange={(e) => setReason(e.target.value)}
                rows={3}
                maxLength={REASON_MAX}
                placeholder={t("refund.reasonPlaceholder")}
                className="font-sans text-sm"
                invalid={checked && !reasonOk}
              />
              {checked && !reasonOk && <p className="mt-1 text-xs text-red-700">{t("refund.reasonRequired")}</p>}
            </div>
          </form>
        ) : (
          <div className="space-y-3" data-testid="refund-confirm">
            <p className="text-sm text-zinc-700">{t("refund.confirmBody", { amount: unit(Number(amount.trim())), account: accountId })}</p>
            <blockquote className="border-l-2 border-zinc-200 pl-3 text-sm text-zinc-600">{reason.trim()}</blockquote>
            {refund.isError && <Notice tone="error">{refund.error.message}</Notice>}
          </div>
        )}
      </Dialog>
    </>
  );
}

/** What the refund just did, under the Call's header. */
export function RefundDone({ refund }: { refund: Refund }) {
  const { t, locale } = useI18n();
  return (
    <Notice tone="success" testId="refund-done">
      {t("refund.done", { amount: formatCreditsUnit(refund.refund.amount_credits, locale, t), id: refund.refund.id })}
    </Notice>
  );
}

"use client";

import { useFormStatus } from "react-dom";
import { useI18n } from "@/components/i18n/i18n-provider";

/** Deny and Approve submit the same form with `decision`; both disable while it is sent. */
export function DecisionButtons() {
  const { t } = useI18n();
  const { pending, data } = useFormStatus();
  const chosen = data?.get("decision");
  return (
    <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
      <button
        type="submit"
        name="decision"
        value="deny"
        disabled={pending}
        className="rounded-lg border border-zinc-300 bg-white px-4 py-2.5 text-sm font-semibold text-zinc-700 shadow-xs hover:bg-zinc-50 disabled:cursor-not-allowed disabled:opacity-60"
      >
        {pending && chosen === "deny" ? t("authorize.working") : t("authorize.deny")}
      </button>
      <button
        type="submit"
        name="decision"
        value="approve"
        disabled={pending}
        className="rounded-lg bg-indigo-600 px-5 py-2.5 text-sm font-semibold text-white shadow-xs hover:bg-indigo-500 disabled:cursor-not-allowed disabled:opacity-60"
      >
        {pending && chosen === "approve" ? t("authorize.working") : t("authorize.approve")}
      </button>
    </div>
  );
}

"use client";

import { useId } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Card } from "@/components/ui/card";
import { Notice } from "@/components/ui/states";
import { connectionsQueryKey, setConnectionSharing, type ConnectionSharing } from "@/lib/dashboard/connections";

const choices: { value: ConnectionSharing; label: "connections.sharingOwners" | "connections.sharingMembers" }[] = [
  { value: "owners", label: "connections.sharingOwners" },
  { value: "members", label: "connections.sharingMembers" },
];

/** The owners' choice of who may share a connection with the whole account (saved as it is picked). */
export function SharingControl({ sharing }: { sharing: ConnectionSharing }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const name = useId();
  const save = useMutation({
    mutationFn: setConnectionSharing,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: connectionsQueryKey }),
  });
  const chosen = save.isPending ? save.variables : sharing;
  return (
    <Card className="p-4 sm:p-5" data-testid="sharing-control">
      <fieldset disabled={save.isPending}>
        <legend className="text-sm font-semibold text-zinc-900">{t("connections.sharingTitle")}</legend>
        <p className="mt-1 text-sm text-zinc-500">{t("connections.sharingBody")}</p>
        <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:gap-6">
          {choices.map((c) => (
            <label key={c.value} className="flex items-center gap-2 text-sm text-zinc-800">
              <input type="radio" name={name} value={c.value} checked={chosen === c.value} onChange={() => save.mutate(c.value)} className="accent-indigo-600" />
              {t(c.label)}
            </label>
          ))}
        </div>
      </fieldset>
      <div aria-live="polite" className="mt-2 text-xs text-emerald-700">
        {save.isSuccess && t("connections.sharingSaved")}
      </div>
      {save.isError && (
        <div className="mt-2">
          <Notice tone="error">{save.error.message}</Notice>
        </div>
      )}
    </Card>
  );
}

"use client";

import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { recoveryCodesFile } from "@/lib/dashboard/two-factor";

/** The ten recovery codes, this once: copy them, download them, then say they are kept. */
export function RecoveryCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const { t } = useI18n();
  function download() {
    const url = URL.createObjectURL(new Blob([recoveryCodesFile(codes, email)], { type: "text/plain;charset=utf-8" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = "tollgate-recovery-codes.txt";
    link.click();
    URL.revokeObjectURL(url);
  }
  return (
    <Card className="space-y-4 border-emerald-200 p-5" data-testid="recovery-codes">
      <div>
        <p className="text-sm font-semibold text-zinc-900">{t("twoFactor.recoveryTitle")}</p>
        <p className="mt-1 text-sm text-zinc-600">{t("twoFactor.recoveryBody")}</p>
      </div>
      <ol className="grid grid-cols-1 gap-x-6 gap-y-1.5 rounded-lg bg-zinc-50 p-4 font-mono text-sm text-zinc-900 min-[420px]:grid-cols-2">
        {codes.map((code) => (
          <li key={code} data-testid="recovery-code">
            {code}
          </li>
        ))}
      </ol>
      <div className="flex flex-wrap items-center gap-2">
        <CopyButton value={codes.join("\n")} label={t("twoFactor.copyAll")} showLabel className="border border-zinc-300 px-2.5 py-1.5" />
        <Button size="sm" onClick={download}>
          {t("twoFactor.download")}
        </Button>
        <Button size="sm" variant="primary" onClick={onDone} className="ml-auto">
          {t("twoFactor.savedThem")}
        </Button>
      </div>
    </Card>
  );
}

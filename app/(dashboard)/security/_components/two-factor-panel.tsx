"use client";

import { useId, useState, type FormEvent } from "react";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { LoadingBlock, Notice } from "@/components/ui/states";
import { formatCount, formatZonedDateTime } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import {
  accountSecurityQueryKey,
  confirmEnrolment,
  disableTwoFactor,
  fetchTwoFactorStatus,
  startEnrolment,
  twoFactorQueryKey,
  type TwoFactorEnrolment,
  type TwoFactorStatus,
} from "@/lib/dashboard/two-factor";
import { RecoveryCodes } from "./recovery-codes";

/** The secret in groups of four, as authenticator apps show keys to type. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(" ") ?? secret;
const qrSource = (svg: string) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

function PasswordStep({ onStarted, onCancel }: { onStarted: (enrolment: TwoFactorEnrolment) => void; onCancel: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const [password, setPassword] = useState("");
  const start = useMutation({ mutationFn: startEnrolment, onSuccess: onStarted });
  function submit(event: FormEvent) {
    event.preventDefault();
    start.mutate(password);
  }
  return (
    <form onSubmit={submit} className="max-w-sm space-y-3" data-testid="two-factor-password">
      <div>
        <FieldLabel htmlFor={id}>{t("twoFactor.passwordPrompt")}</FieldLabel>
        <TextInput id={id} type="password" autoComplete="current-password" required autoFocus value={password} onChange={(e) => setPassword(e.target.value)} />
      </div>
      {start.isError && <Notice tone="error">{start.error.message}</Notice>}
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={start.isPending || !password}>
          {t("twoFactor.continue")}
        </Button>
        <Button onClick={onCancel}>{t("twoFactor.cancel")}</Button>
      </div>
    </form>
  );
}

function ScanStep({ enrolment, onConfirmed, onCancel }: { enrolment: TwoFactorEnrolment; onConfirmed: (codes: string[]) => void; onCancel: () => void }) {
  const { t } = useI18n();
  const codeId = useId();
  const [code, setCode] = useState("");
  const confirm = useMutation({ mutationFn: confirmEnrolment, onSuccess: (enabled) => onConfirmed(enabled.recovery_codes) });
  function submit(event: FormEvent) {
    event.preventDefault();
    confirm.mutate(code.trim());
  }
  return (
    <div className="grid gap-6 md:grid-cols-[auto_1fr]" data-testid="two-factor-enrolment">
      <div className="space-y-2">
        <p className="text-sm font-semibold text-zinc-900">{t("twoFactor.scanTitle")}</p>
        {/* A data URL of the server's SVG: no third party ever sees the secret. */}
        {/* eslint-disable-next-line @next/next/no-img-element */}
        <img src={qrSource(enrolment.qr_svg)} alt={t("twoFactor.qrAlt")} width={184} height={184} className="rounded-lg border border-zinc-200 bg-white" />
      </div>
      <div className="min-w-0 space-y-5">
        <div>
          <p className="text-sm text-zinc-600">{t("twoFactor.scanBody")}</p>
          <p className="mt-3 text-xs font-medium uppercase tracking-wide text-zinc-500">{t("twoFactor.secretLabel")}</p>
          <div className="mt-1 flex min-w-0 items-center gap-1">
            <code className="min-w-0 break-words rounded-md bg-zinc-100 px-2 py-1 font-mono text-sm text-zinc-900" data-testid="totp-secret">
              {grouped(enrolment.secret)}
            </code>
            <CopyButton value={enrolment.secret} />
          </div>
        </div>
        <form onSubmit={submit} className="max-w-xs space-y-3">
          <p className="text-sm font-semibold text-zinc-900">{t("twoFactor.confirmTitle")}</p>
          <div>
            <FieldLabel htmlFor={codeId}>{t("twoFactor.code")}</FieldLabel>
            <TextInput
              id={codeId}
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]{6,7}"
              maxLength={7}
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
              className="font-mono tracking-widest"
            />
          </div>
          {confirm.isError && <Notice tone="error">{confirm.error.message}</Notice>}
          <div className="flex gap-2">
            <Button type="submit" variant="primary" disabled={confirm.isPending}>
              {confirm.isPending ? t("twoFactor.confirming") : t("twoFactor.confirm")}
            </Button>
            <Button onClick={onCancel}>{t("twoFactor.cancel")}</Button>
          </div>
        </form>
      </div>
    </div>
  );
}

function DisableForm({ required, onDisabled }: { required: boolean; onDisabled: () => void }) {
  const { t } = useI18n();
  const id = useId();
  const [code, setCode] = useState("");
  const disable = useMutation({ mutationFn: disableTwoFactor, onSuccess: onDisabled });
  function submit(event: FormEvent) {
    event.preventDefault();
    disable.mutate(code.trim());
  }
  return (
    <form onSubmit={submit} className="space-y-3 border-t border-zinc-100 pt-4" data-testid="two-factor-disable">
      <div>
        <p className="text-sm font-semibold text-zinc-900">{t("twoFactor.disableTitle")}</p>
        <p className="mt-1 text-sm text-zinc-500">{t("twoFactor.disableBody")}</p>
      </div>
      {required && <Notice tone="warn">{t("twoFactor.disabledRequired")}</Notice>}
      <div className="flex max-w-md flex-wrap items-end gap-2">
        <div className="min-w-40 flex-1">
          <FieldLabel htmlFor={id}>{t("twoFactor.codeOrRecovery")}</FieldLabel>
          <TextInput id={id} autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} className="font-mono" />
        </div>
        <Button type="submit" variant="danger" disabled={disable.isPending}>
          {disable.isPending ? t("twoFactor.disabling") : t("twoFactor.disable")}
        </Button>
      </div>
      {disable.isError && <Notice tone="error">{disable.error.message}</Notice>}
    </form>
  );
}

function StatusLine({ status }: { status: TwoFactorStatus }) {
  const { t, locale } = useI18n();
  const { timeZone } = useTimeZone();
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-zinc-600" data-testid="two-factor-status">
      <Badge tone={status.enabled ? "green" : "neutral"}>{status.enabled ? t("twoFactor.statusOn") : t("twoFactor.statusOff")}</Badge>
      {status.enabled && status.enabled_at && <span>{t("twoFactor.onSince", { date: formatZonedDateTime(status.enabled_at, timeZone, locale) })}</span>}
      {status.enabled && <span>{t("twoFactor.recoveryLeft", { count: status.recovery_codes_remaining })}</span>}
    </div>
  );
}

type Step = { kind: "idle" } | { kind: "password" } | { kind: "scan"; enrolment: TwoFactorEnrolment } | { kind: "codes"; codes: string[] };

/** The user's own two-factor sign-in: enrol (password, QR, confirmation code, recovery codes once) or turn it off with a code. */
export function TwoFactorPanel({ email, enrolmentRequired }: { email: string; enrolmentRequired: boolean }) {
  const { t } = useI18n();
  const router = useRouter();
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: twoFactorQueryKey, queryFn: ({ signal }) => fetchTwoFactorStatus(signal) });
  const [step, setStep] = useState<Step>({ kind: "idle" });

  // The layout decides from the database whether enrolment comes first: ask it again.
  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: twoFactorQueryKey });
    void queryClient.invalidateQueries({ queryKey: accountSecurityQueryKey });
    router.refresh();
  };

  return (
    <section aria-labelledby="two-factor-heading" className="space-y-3">
      <div>
        <h2 id="two-factor-heading" className="text-base font-semibold text-zinc-900">
          {t("twoFactor.title")}
        </h2>
        <p className="mt-1 text-sm text-zinc-500">{t("twoFactor.body")}</p>
      </div>
      {(enrolmentRequired || query.data?.must_enrol) && step.kind !== "codes" && (
        <Notice tone="warn" title={t("twoFactor.mustEnrolTitle")} testId="two-factor-required">
          {t("twoFactor.mustEnrolBody")}
        </Notice>
      )}
      {step.kind === "codes" ? (
        <RecoveryCodes codes={step.codes} email={email} onDone={() => { setStep({ kind: "idle" }); changed(); }} />
      ) : query.isPending ? (
        <LoadingBlock label={t("twoFactor.loading")} rows={2} />
      ) : query.isError ? (
        <ErrorState title={t("twoFactor.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : (
        <Card className="space-y-4 p-5">
          <StatusLine status={query.data} />
          {query.data.enabled ? (
            <DisableForm required={query.data.required_by_account} onDisabled={changed} />
          ) : step.kind === "password" ? (
            <PasswordStep onStarted={(enrolment) => setStep({ kind: "scan", enrolment })} onCancel={() => setStep({ kind: "idle" })} />
          ) : step.kind === "scan" ? (
            <ScanStep
              enrolment={step.enrolment}
              onConfirmed={(codes) => {
                setStep({ kind: "codes", codes });
                // Not the layout yet: under the enrolment gate it would replace this panel, and the codes with it.
                void queryClient.invalidateQueries({ queryKey: twoFactorQueryKey });
                void queryClient.invalidateQueries({ queryKey: accountSecurityQueryKey });
              }}
              onCancel={() => setStep({ kind: "idle" })}
            />
          ) : (
            <Button variant="primary" onClick={() => setStep({ kind: "password" })}>
              {t("twoFactor.setUp")}
            </Button>
          )}
        </Card>
      )}
    </section>
  );
}

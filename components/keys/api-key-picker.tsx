"use client";

import { useId, useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { KeyIcon } from "@/components/ui/icons";
import { Notice } from "@/components/ui/states";
import type { ApiKeyStore } from "@/lib/dashboard/api-key-store";
import { checkApiKey } from "@/lib/dashboard/key-client";

/**
 * Which API key the Playground and Console call with. Discover, Inspect, Probe and Call take an
 * API key, as they do for agents; the key is kept in this browser's localStorage only.
 */
export function ApiKeyPicker({ store, accountId }: { store: ApiKeyStore; accountId: string }) {
  const { t } = useI18n();
  const [pasting, setPasting] = useState(false);
  const [pasted, setPasted] = useState("");
  const [pasteError, setPasteError] = useState<string | null>(null);
  const inputId = useId();

  // Reuses nothing it cannot: the secret of an earlier playground key is not in this browser, so a new one replaces it (revoked).
  const create = useMutation({ mutationFn: () => store.createPlaygroundKey() });

  const check = useMutation({
    mutationFn: (key: string) => checkApiKey(key),
    onSuccess: (result, key) => {
      if (result.accountId !== accountId) {
        setPasteError(t("keyPicker.otherAccount"));
        return;
      }
      store.save({ apiKey: key, prefix: key.slice(0, 11), name: null, apiKeyId: null });
      setPasting(false);
      setPasted("");
    },
    onError: (err) => setPasteError(err instanceof Error ? err.message : String(err)),
  });

  function submitPaste(event: FormEvent) {
    event.preventDefault();
    setPasteError(null);
    const key = pasted.trim();
    if (!key) return;
    check.mutate(key);
  }

  if (store.key === undefined) {
    return <Card className="h-[74px] animate-pulse bg-zinc-50" aria-hidden="true" />;
  }

  const pasteForm = pasting && (
    <form onSubmit={submitPaste} className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-end">
      <div className="min-w-0 flex-1">
        <FieldLabel htmlFor={inputId}>{t("keyPicker.pasteLabel")}</FieldLabel>
        <TextInput
          id={inputId}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={pasted}
          onChange={(e) => setPasted(e.target.value)}
          placeholder="tg_…"
          invalid={Boolean(pasteError)}
          aria-describedby={pasteError ? `${inputId}-error` : undefined}
        />
      </div>
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={check.isPending || !pasted.trim()}>
          {check.isPending ? t("keyPicker.checking") : t("keyPicker.use")}
        </Button>
        <Button onClick={() => setPasting(false)}>{t("common.cancel")}</Button>
      </div>
      {pasteError && (
        <p id={`${inputId}-error`} className="text-sm text-red-700 sm:basis-full" role="alert">
          {pasteError}
        </p>
      )}
    </form>
  );

  if (!store.key) {
    return (
      <Card className="p-5" data-testid="key-picker">
        <div className="flex items-start gap-3">
          <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-indigo-50 text-indigo-600">
            <KeyIcon />
          </span>
          <div className="min-w-0 flex-1">
            <h2 className="text-sm font-semibold text-zinc-900">{t("keyPicker.needKeyTitle")}</h2>
            <p className="mt-1 text-sm text-zinc-600">{t("keyPicker.needKeyBody")}</p>
            <p className="mt-1 text-xs text-zinc-500">{t("keyPicker.storedHere")}</p>
            {store.lost && <p className="mt-2 text-sm text-amber-800" data-testid="key-picker-lost">{t("keyPicker.lost")}</p>}
            {store.replaces.length > 0 && (
              <p className="mt-2 text-sm text-zinc-700" data-testid="key-picker-replaces">
                {t("keyPicker.replaces", { count: store.replaces.length, prefixes: store.replaces.map((k) => `${k.prefix}…`).join(", ") })}
              </p>
            )}
            <div className="mt-3 flex flex-wrap gap-2">
              <Button variant="primary" onClick={() => create.mutate()} disabled={create.isPending}>
                {create.isPending ? t("keyPicker.creating") : store.replaces.length > 0 ? t("keyPicker.replace") : t("keyPicker.create")}
              </Button>
              {!pasting && <Button onClick={() => setPasting(true)}>{t("keyPicker.paste")}</Button>}
            </div>
            {create.isError && (
              <div className="mt-3">
                <Notice tone="error">{create.error.message}</Notice>
              </div>
            )}
            {pasteForm}
          </div>
        </div>
      </Card>
    );
  }

  return (
    <Card className="px-4 py-3" data-testid="key-picker">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <div className="flex min-w-0 items-center gap-2.5">
          <KeyIcon className="shrink-0 text-indigo-600" width={18} height={18} />
          <p className="min-w-0 text-sm text-zinc-700">
            {t("keyPicker.callingWith")}{" "}
            <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-xs text-zinc-800" data-testid="key-picker-prefix">
              {store.key.prefix}…
            </code>
            {store.key.name && <span className="text-zinc-500"> · {store.key.name}</span>}
            <span className="block text-xs text-zinc-500 sm:inline sm:before:content-['_·_']">{t("keyPicker.storedShort")}</span>
          </p>
        </div>
        <div className="flex shrink-0 gap-1">
          {!pasting && (
            <Button size="sm" variant="ghost" onClick={() => setPasting(true)}>
              {t("keyPicker.change")}
            </Button>
          )}
          <Button size="sm" variant="ghost" onClick={store.forget}>
            {t("keyPicker.forget")}
          </Button>
        </div>
      </div>
      {pasteForm}
    </Card>
  );
}

/** Shown when the API refused the stored key (revoked, deleted): forget it and pick another. */
export function RejectedKeyNotice({ store, message }: { store: ApiKeyStore; message: string }) {
  const { t } = useI18n();
  return (
    <Notice tone="error" title={t("keyPicker.rejectedTitle")} testId="key-rejected">
      <p>{message}</p>
      <Button size="sm" className="mt-2" onClick={store.forget}>
        {t("keyPicker.forgetAndPick")}
      </Button>
    </Notice>
  );
}

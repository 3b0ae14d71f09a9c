"use client";

import { useId, useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { Notice } from "@/components/ui/states";
import { connectionsQueryKey, startConnection, type Connection, type ConnectableProvider } from "@/lib/dashboard/connections";

/**
 * A secret provider's connect form: the one value it takes (an API key or token, named as the
 * provider calls it), or a user name and password. The value goes to the API once and is never
 * shown again; the fields are cleared as soon as it is saved.
 */
export function SecretConnectForm({
  provider,
  shared,
  onConnected,
  onCancel,
}: {
  provider: ConnectableProvider;
  shared: boolean;
  onConnected: (connection: Connection) => void;
  onCancel?: () => void;
}) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const ids = { value: useId(), username: useId(), password: useId() };
  const basic = provider.format === "basic";
  const [value, setValue] = useState("");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const save = useMutation({
    mutationFn: () => startConnection({ providerId: provider.provider_id, shared, secret: basic ? { username, password } : { value: value.trim() } }),
    onSuccess: (started) => {
      setValue("");
      setUsername("");
      setPassword("");
      void queryClient.invalidateQueries({ queryKey: connectionsQueryKey });
      if (started.kind === "secret") onConnected(started.connection);
    },
  });
  const complete = basic ? username.trim() !== "" && password !== "" : value.trim() !== "";

  function submit(event: FormEvent) {
    event.preventDefault();
    if (complete) save.mutate();
  }

  return (
    <form onSubmit={submit} className="space-y-3" data-testid="secret-form" autoComplete="off">
      <p className="text-sm text-zinc-600">{t("connections.secret.body", { provider: provider.name })}</p>
      {basic ? (
        <div className="grid gap-3 sm:grid-cols-2">
          <div className="min-w-0">
            <FieldLabel htmlFor={ids.username}>{t("connections.secret.username")}</FieldLabel>
            <TextInput id={ids.username} value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" spellCheck={false} />
          </div>
          <div className="min-w-0">
            <FieldLabel htmlFor={ids.password}>{t("connections.secret.password")}</FieldLabel>
            <TextInput id={ids.password} type="password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
          </div>
        </div>
      ) : (
        <div className="min-w-0">
          <FieldLabel htmlFor={ids.value}>{provider.label ?? t("connections.secret.value")}</FieldLabel>
          <TextInput id={ids.value} type="password" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="new-password" spellCheck={false} className="font-mono" />
        </div>
      )}
      {save.isError && <Notice tone="error">{save.error.message}</Notice>}
      <div className="flex flex-wrap justify-end gap-2">
        {onCancel && <Button onClick={onCancel}>{t("common.cancel")}</Button>}
        <Button type="submit" variant="primary" disabled={!complete || save.isPending}>
          {save.isPending ? t("connections.connecting") : t("connections.secret.submit")}
        </Button>
      </div>
    </form>
  );
}

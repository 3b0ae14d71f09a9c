"use client";

import { useId, useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { FieldLabel, Select, TextInput } from "@/components/ui/form-controls";
import { Notice } from "@/components/ui/states";
import { createInvitation, invitationsQueryKey, type CreatedInvitation } from "@/lib/dashboard/team";
import { assignableRoles, type AssignableRole } from "./roles";

/** The owner invites an email with a role; the single-use link is shown to copy (and mailed when SMTP is set up). */
export function InviteForm() {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const ids = { email: useId(), role: useId() };
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<AssignableRole>("member");
  const [sent, setSent] = useState<CreatedInvitation | null>(null);
  const invite = useMutation({
    mutationFn: createInvitation,
    onSuccess: (created) => {
      setSent(created);
      setEmail("");
      void queryClient.invalidateQueries({ queryKey: invitationsQueryKey });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setSent(null);
    if (email.trim()) invite.mutate({ email: email.trim(), role });
  }

  return (
    <Card className="p-5">
      <h2 className="text-sm font-semibold text-zinc-900">{t("members.inviteTitle")}</h2>
      <p className="mt-1 text-sm text-zinc-500">{t("members.inviteBody")}</p>
      <form onSubmit={submit} className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end" data-testid="invite-form">
        <div className="min-w-0 flex-1">
          <FieldLabel htmlFor={ids.email}>{t("members.email")}</FieldLabel>
          <TextInput id={ids.email} type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@example.com" />
        </div>
        <div>
          <FieldLabel htmlFor={ids.role}>{t("members.role")}</FieldLabel>
          <Select id={ids.role} value={role} onChange={(e) => setRole(e.target.value as AssignableRole)} className="sm:w-40">
            {assignableRoles.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r}`)}
              </option>
            ))}
          </Select>
        </div>
        <Button type="submit" variant="primary" disabled={invite.isPending || !email.trim()}>
          {invite.isPending ? t("members.inviting") : t("members.invite")}
        </Button>
      </form>
      {invite.isError && (
        <div className="mt-3">
          <Notice tone="error">{invite.error.message}</Notice>
        </div>
      )}
      {sent && (
        <div className="mt-4 space-y-2" data-testid="invitation-sent">
          <Notice tone="success" title={t("members.invitedTitle", { email: sent.invitation.email })}>
            <p>{sent.mail_sent ? t("members.mailSent", { email: sent.invitation.email }) : t("members.mailNotSent")}</p>
            {sent.mail_error && <p className="mt-1 text-xs opacity-80">{sent.mail_error}</p>}
          </Notice>
          <div className="flex items-center gap-2 rounded-lg border border-zinc-200 bg-zinc-50 p-3">
            <code className="min-w-0 flex-1 break-all font-mono text-xs text-zinc-900" data-testid="invitation-url">
              {sent.invitation_url}
            </code>
            <CopyButton value={sent.invitation_url} label={t("members.copyLink")} showLabel />
          </div>
          <p className="text-xs text-zinc-500">{t("members.linkOnce")}</p>
        </div>
      )}
    </Card>
  );
}

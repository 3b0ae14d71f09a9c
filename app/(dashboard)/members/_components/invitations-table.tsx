"use client";

import { useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { Badge, type Tone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { formatDateTime } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { fetchInvitations, fetchMembers, invitationsQueryKey, membersQueryKey, revokeInvitation, type Invitation } from "@/lib/dashboard/team";

const column = createColumnHelper<Invitation>();

const statusTone: Record<Invitation["status"], Tone> = { pending: "amber", accepted: "green", expired: "neutral", revoked: "red" };

export function InvitationsTable({ canManage }: { canManage: boolean }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const query = useQuery({ queryKey: invitationsQueryKey, queryFn: ({ signal }) => fetchInvitations(signal) });
  // The inviter is kept as a user id: named from the member list while they are still a member.
  const members = useQuery({ queryKey: membersQueryKey, queryFn: ({ signal }) => fetchMembers(signal) });
  const emailOf = useMemo(() => new Map((members.data ?? []).map((m) => [m.user_id, m.email])), [members.data]);

  const revoke = useMutation({
    mutationFn: (inv: Invitation) => revokeInvitation(inv.invitation_id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: invitationsQueryKey });
      close();
    },
  });
  function close() {
    revoke.reset();
    setRevoking(null);
  }

  const columns = useMemo(
    () => [
      column.accessor("email", {
        header: () => t("members.email"),
        cell: (info) => <span className="break-all font-medium text-zinc-900">{info.getValue()}</span>,
        meta: { primary: true },
      }),
      column.accessor("status", {
        header: () => t("members.invitationStatus"),
        cell: (info) => <Badge tone={statusTone[info.getValue()]}>{t(`members.invitation.${info.getValue()}`)}</Badge>,
        meta: { primary: true },
      }),
      column.accessor("role", {
        header: () => t("members.role"),
        cell: (info) => <span className="whitespace-nowrap">{t(`role.${info.getValue()}`)}</span>,
      }),
      column.accessor("invited_by", {
        header: () => t("members.invitedBy"),
        cell: (info) => {
          const id = info.getValue();
          // No inviting user: the operator invited from the CLI.
          return <span className="break-all text-zinc-600">{id ? (emailOf.get(id) ?? id) : t("members.invitedByOperator")}</span>;
        },
      }),
      column.accessor("created_at", {
        header: () => t("members.sentAt", { tz: tz.timeZone }),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-600">{formatDateTime(info.getValue(), tz.timeZone, { seconds: false })}</span>,
      }),
      column.accessor("expires_at", {
        header: () => t("members.expiresAt", { tz: tz.timeZone }),
        cell: (info) => {
          const inv = info.row.original;
          const when = inv.status === "accepted" ? inv.accepted_at : info.getValue();
          return (
            <span className="whitespace-nowrap tabular-nums text-zinc-600">
              {inv.status === "accepted" ? `${t("members.acceptedAt")} ` : ""}
              {formatDateTime(when, tz.timeZone, { seconds: false })}
            </span>
          );
        },
      }),
      ...(canManage
        ? [
            column.display({
              id: "actions",
              header: () => <span className="sr-only">{t("members.actions")}</span>,
              cell: (info) =>
                info.row.original.status === "pending" ? (
                  <Button size="sm" variant="danger" onClick={() => setRevoking(info.row.original)} aria-label={t("members.revokeInvitationOf", { email: info.row.original.email })}>
                    {t("members.revokeInvitation")}
                  </Button>
                ) : null,
              meta: { align: "right" as const },
            }),
          ]
        : []),
    ],
    [t, tz.timeZone, canManage, emailOf],
  );

  return (
    <section aria-labelledby="invitations-heading" className="space-y-3">
      <h2 id="invitations-heading" className="text-sm font-semibold text-zinc-900">
        {t("members.invitationsTitle")}
      </h2>
      {query.isPending ? (
        <LoadingBlock label={t("members.loading")} rows={2} />
      ) : query.isError ? (
        <ErrorState title={t("members.invitationsError")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title={t("members.invitationsEmpty")} body={canManage ? t("members.invitationsEmptyBody") : undefined} testId="invitations-empty" />
      ) : (
        <DataTable data={query.data} columns={columns} caption={t("members.invitationsTitle")} getRowId={(i) => i.invitation_id} rowTestId="invitation-row" />
      )}
      <p className="text-xs text-zinc-500">{t("members.invitationsNote")}</p>
      <Dialog
        open={revoking !== null}
        onClose={close}
        title={t("members.revokeInvitationTitle", { email: revoking?.email ?? "" })}
        closeLabel={t("common.close")}
        testId="revoke-invitation-dialog"
        footer={
          <>
            <Button onClick={close}>{t("common.cancel")}</Button>
            <Button variant="primary" className="bg-red-600 hover:bg-red-500" onClick={() => revoking && revoke.mutate(revoking)} disabled={revoke.isPending}>
              {t("members.confirmRevokeInvitation")}
            </Button>
          </>
        }
      >
        <p className="text-sm text-zinc-600">{t("members.revokeInvitationBody")}</p>
        {revoke.isError && (
          <div className="mt-3">
            <Notice tone="error">{revoke.error.message}</Notice>
          </div>
        )}
      </Dialog>
    </section>
  );
}

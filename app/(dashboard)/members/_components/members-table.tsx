"use client";

import { useId, useMemo, useState } from "react";
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { TimeZoneSwitch } from "@/components/filters/time-zone-switch";
import { DataTable } from "@/components/tables/data-table";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, Select } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { formatDateTime } from "@/lib/dashboard/format";
import { useTimeZone } from "@/lib/dashboard/time-zone";
import { changeMemberRole, fetchMembers, invitationsQueryKey, membersQueryKey, removeMember, type Member, type RemovedMember } from "@/lib/dashboard/team";
import { assignableRoles, type AssignableRole } from "./roles";
import { KeyList } from "./keys-to-review";

const column = createColumnHelper<Member>();

function KeysCell({ keys }: { keys: Member["api_keys"] }) {
  const { t } = useI18n();
  if (keys.length === 0) return <span className="text-zinc-500">{t("members.noKeys")}</span>;
  return (
    <ul className="space-y-0.5" data-testid="member-keys">
      {keys.map((k) => (
        <li key={k.api_key_id} className="flex min-w-0 flex-wrap items-center gap-1.5">
          <Link href="/keys" className={`truncate text-indigo-700 hover:underline ${k.revoked ? "text-zinc-500 line-through" : ""}`} title={`${k.prefix}…`}>
            {k.name}
          </Link>
          {k.revoked && <span className="text-xs text-zinc-500">{t("keys.revoked")}</span>}
        </li>
      ))}
    </ul>
  );
}

function RoleDialog({ member, onClose }: { member: Member | null; onClose: () => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const selectId = useId();
  const [role, setRole] = useState<AssignableRole | null>(null);
  const current = member && (assignableRoles as readonly string[]).includes(member.role) ? (member.role as AssignableRole) : "member";
  const chosen = role ?? current;
  const change = useMutation({
    mutationFn: (m: Member) => changeMemberRole(m.user_id, chosen),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: membersQueryKey });
      close();
    },
  });
  function close() {
    change.reset();
    setRole(null);
    onClose();
  }
  return (
    <Dialog
      open={member !== null}
      onClose={close}
      title={t("members.roleTitle", { email: member?.email ?? "" })}
      closeLabel={t("common.close")}
      testId="role-dialog"
      footer={
        <>
          <Button onClick={close}>{t("common.cancel")}</Button>
          <Button variant="primary" onClick={() => member && change.mutate(member)} disabled={change.isPending || chosen === member?.role}>
            {change.isPending ? t("members.saving") : t("members.saveRole")}
          </Button>
        </>
      }
    >
      <FieldLabel htmlFor={selectId}>{t("members.role")}</FieldLabel>
      <Select id={selectId} value={chosen} onChange={(e) => setRole(e.target.value as AssignableRole)}>
        {assignableRoles.map((r) => (
          <option key={r} value={r}>
            {t(`role.${r}`)}
          </option>
        ))}
      </Select>
      <p className="mt-2 text-xs text-zinc-500">{t("members.roleHint")}</p>
      {change.isError && (
        <div className="mt-3">
          <Notice tone="error">{change.error.message}</Notice>
        </div>
      )}
    </Dialog>
  );
}

function RemoveDialog({ member, self, onClose, onRemoved }: { member: Member | null; self: boolean; onClose: () => void; onRemoved: (email: string, result: RemovedMember) => void }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [keepKeys, setKeepKeys] = useState(false);
  const remove = useMutation({
    mutationFn: (m: Member) => removeMember(m.user_id, keepKeys),
    onSuccess: (result, m) => {
      // Removing yourself ends your access to this account: start again from a fresh load.
      if (self) {
        window.location.assign("/");
        return;
      }
      void queryClient.invalidateQueries({ queryKey: membersQueryKey });
      void queryClient.invalidateQueries({ queryKey: invitationsQueryKey });
      onRemoved(m.email, result);
      close();
    },
  });
  function close() {
    remove.reset();
    setKeepKeys(false);
    onClose();
  }
  const activeKeys = member?.api_keys.filter((k) => !k.revoked) ?? [];
  return (
    <Dialog
      open={member !== null}
      onClose={close}
      title={t("members.removeTitle", { email: member?.email ?? "" })}
      closeLabel={t("common.close")}
      testId="remove-member-dialog"
      footer={
        <>
          <Button onClick={close}>{t("common.cancel")}</Button>
          <Button variant="primary" className="bg-red-600 hover:bg-red-500" onClick={() => member && remove.mutate(member)} disabled={remove.isPending}>
            {remove.isPending ? t("members.removing") : t("members.confirmRemove")}
          </Button>
        </>
      }
    >
      <div className="space-y-2 text-sm text-zinc-600">
        <p>{self ? t("members.removeSelfBody") : t("members.removeBody")}</p>
        {activeKeys.length > 0 && (
          <>
            <p>{t(keepKeys ? "members.removeKeysKept" : "members.removeKeysRevoked", { count: activeKeys.length })}</p>
            <KeyList keys={activeKeys} className="space-y-0.5" testId="remove-member-keys" />
            <label className="flex items-start gap-2 pt-1 text-zinc-800">
              <input type="checkbox" checked={keepKeys} onChange={(e) => setKeepKeys(e.target.checked)} className="mt-0.5 accent-indigo-600" data-testid="keep-keys" />
              <span>{t("members.keepKeys", { count: activeKeys.length })}</span>
            </label>
          </>
        )}
      </div>
      {remove.isError && (
        <div className="mt-3">
          <Notice tone="error" testId="remove-member-error">
            {remove.error.message}
          </Notice>
        </div>
      )}
    </Dialog>
  );
}

export function MembersTable({ currentUserId, canManage, onRemoved }: { currentUserId: string; canManage: boolean; onRemoved: (email: string, result: RemovedMember) => void }) {
  const { t } = useI18n();
  const tz = useTimeZone();
  const [changing, setChanging] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const query = useQuery({ queryKey: membersQueryKey, queryFn: ({ signal }) => fetchMembers(signal) });
  // The account keeps an owner: its last one can be neither removed nor demoted, so neither is offered.
  const owners = query.data?.filter((m) => m.role === "owner").length ?? 0;

  const columns = useMemo(
    () => [
      column.accessor("email", {
        header: () => t("members.email"),
        cell: (info) => (
          <span className="flex min-w-0 flex-wrap items-center gap-1.5">
            <span className="break-all font-medium text-zinc-900">{info.getValue()}</span>
            {info.row.original.user_id === currentUserId && <Badge tone="indigo">{t("members.you")}</Badge>}
          </span>
        ),
        meta: { primary: true },
      }),
      column.accessor("role", {
        header: () => t("members.role"),
        cell: (info) => <Badge tone={info.getValue() === "owner" ? "sky" : "neutral"}>{t(`role.${info.getValue()}`)}</Badge>,
      }),
      column.accessor("joined_at", {
        header: () => t("members.joined", { tz: tz.timeZone }),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-600">{formatDateTime(info.getValue(), tz.timeZone, { seconds: false })}</span>,
      }),
      column.accessor("last_signed_in_at", {
        header: () => t("members.lastSignedIn"),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-600">{info.getValue() ? formatDateTime(info.getValue(), tz.timeZone, { seconds: false }) : t("members.never")}</span>,
      }),
      column.accessor("two_factor", {
        header: () => t("members.twoFactor"),
        cell: (info) => (info.getValue() ? <Badge tone="green">{t("members.twoFactorOn")}</Badge> : <Badge tone="neutral">{t("members.twoFactorOff")}</Badge>),
      }),
      column.accessor("api_keys", {
        header: () => t("members.keys"),
        cell: (info) => <KeysCell keys={info.getValue()} />,
      }),
      ...(canManage
        ? [
            column.display({
              id: "actions",
              header: () => <span className="sr-only">{t("members.actions")}</span>,
              cell: (info) =>
                info.row.original.role === "owner" && owners <= 1 ? (
                  <span className="block text-right text-xs text-zinc-500" data-testid="last-owner">
                    {t("members.lastOwner")}
                  </span>
                ) : (
                <span className="flex flex-wrap justify-end gap-2">
                  <Button size="sm" onClick={() => setChanging(info.row.original)} aria-label={t("members.changeRoleOf", { email: info.row.original.email })}>
                    {t("members.changeRole")}
                  </Button>
                  <Button size="sm" variant="danger" onClick={() => setRemoving(info.row.original)} aria-label={t("members.removeNamed", { email: info.row.original.email })}>
                    {t("members.remove")}
                  </Button>
                </span>
                ),
              meta: { align: "right" as const },
            }),
          ]
        : []),
    ],
    [t, tz.timeZone, currentUserId, canManage, owners],
  );

  return (
    <section aria-labelledby="members-heading" className="space-y-3">
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
        <h2 id="members-heading" className="text-sm font-semibold text-zinc-900">
          {t("members.listTitle")}
        </h2>
        <TimeZoneSwitch tz={tz} />
      </div>
      {query.isPending ? (
        <LoadingBlock label={t("members.loading")} />
      ) : query.isError ? (
        <ErrorState title={t("members.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : query.data.length === 0 ? (
        <EmptyState title={t("members.emptyTitle")} />
      ) : (
        <DataTable data={query.data} columns={columns} caption={t("members.listTitle")} getRowId={(m) => m.user_id} rowTestId="member-row" />
      )}
      <RoleDialog member={changing} onClose={() => setChanging(null)} />
      <RemoveDialog member={removing} self={removing?.user_id === currentUserId} onClose={() => setRemoving(null)} onRemoved={onRemoved} />
    </section>
  );
}

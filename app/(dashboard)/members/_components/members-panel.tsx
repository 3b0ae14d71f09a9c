"use client";

import { useState } from "react";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Notice } from "@/components/ui/states";
import type { RemovedMember } from "@/lib/dashboard/team";
import { InviteForm } from "./invite-form";
import { InvitationsTable } from "./invitations-table";
import { MembersTable } from "./members-table";
import { KeysToReview } from "./keys-to-review";
import { RegionCard } from "./region-card";

/** The Members page: who belongs to the account, the invitations sent and its region. Owners manage all three. */
export function MembersPanel({ currentUserId, canManage }: { currentUserId: string; canManage: boolean }) {
  const { t } = useI18n();
  const [removed, setRemoved] = useState<{ email: string; result: RemovedMember } | null>(null);
  return (
    <div className="space-y-8">
      {canManage ? <InviteForm /> : <Notice testId="members-read-only">{t("members.readOnly")}</Notice>}
      {removed && <KeysToReview email={removed.email} result={removed.result} onDismiss={() => setRemoved(null)} />}
      <MembersTable currentUserId={currentUserId} canManage={canManage} onRemoved={(email, result) => setRemoved({ email, result })} />
      <InvitationsTable canManage={canManage} />
      <RegionCard canManage={canManage} />
    </div>
  );
}

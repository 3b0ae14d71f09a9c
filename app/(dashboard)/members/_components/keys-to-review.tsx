"use client";

import Link from "next/link";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/states";
import type { RemovedMember } from "@/lib/dashboard/team";

/** API keys by name and visible prefix: those a member created, before and after their removal. */
export function KeyList({ keys, className, testId }: { keys: { api_key_id: string; name: string; prefix: string }[]; className: string; testId: string }) {
  return (
    <ul className={className} data-testid={testId}>
      {keys.map((k) => (
        <li key={k.api_key_id} className="flex flex-wrap items-center gap-2">
          <span className="font-medium text-zinc-800">{k.name}</span>
          <code className="font-mono text-xs">{k.prefix}…</code>
        </li>
      ))}
    </ul>
  );
}

/**
 * After a removal: the API keys the person created, revoked with them, or kept (with
 * "Keep their keys") and listed for the owner to review.
 */
export function KeysToReview({ email, result, onDismiss }: { email: string; result: RemovedMember; onDismiss: () => void }) {
  const { t } = useI18n();
  const kept = result.api_keys_kept;
  const revoked = result.api_keys_revoked;
  const keys = kept.length > 0 ? kept : revoked;
  return (
    <Notice tone={kept.length > 0 ? "warn" : "success"} title={t("members.removedTitle", { email })} testId="member-removed">
      {keys.length === 0 ? (
        <p>{t("members.removedNoKeys")}</p>
      ) : (
        <>
          <p>{kept.length > 0 ? t("members.removedKeys", { count: kept.length }) : t("members.removedKeysRevoked", { count: revoked.length })}</p>
          <KeyList keys={keys} className="mt-2 space-y-1" testId={kept.length > 0 ? "keys-to-review" : "keys-revoked"} />
          {kept.length > 0 && (
            <p className="mt-2">
              <Link href="/keys" className="font-medium text-indigo-700 underline hover:text-indigo-600">
                {t("members.reviewKeys")}
              </Link>
            </p>
          )}
        </>
      )}
      <div className="mt-2">
        <Button size="sm" variant="ghost" onClick={onDismiss}>
          {t("common.close")}
        </Button>
      </div>
    </Notice>
  );
}

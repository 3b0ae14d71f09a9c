"use client";

import { useMemo } from "react";
import { createColumnHelper } from "@tanstack/react-table";
import { useI18n } from "@/components/i18n/i18n-provider";
import { DataTable } from "@/components/tables/data-table";
import { Badge } from "@/components/ui/badge";
import { formatDateTime, shortId } from "@/lib/dashboard/format";
import type { ActivityEntry } from "@/lib/dashboard/team";
import { shortUserAgent } from "@/lib/dashboard/user-agent";
import { changeLines, objectLabel, objectTypeLabel } from "@/lib/dashboard/activity-change";

const column = createColumnHelper<ActivityEntry>();

export function ActivityTable({ entries, timeZone, busy, keyName }: { entries: ActivityEntry[]; timeZone: string; busy: boolean; keyName?: (id: string) => string | undefined }) {
  const { t, locale } = useI18n();
  const columns = useMemo(
    () => [
      column.accessor("created_at", {
        header: () => t("activity.when", { tz: timeZone }),
        cell: (info) => <span className="whitespace-nowrap tabular-nums text-zinc-600">{formatDateTime(info.getValue(), timeZone)}</span>,
      }),
      column.accessor("action", {
        header: () => t("activity.what"),
        cell: (info) => (
          <span className="font-medium text-zinc-900" data-action={info.getValue()} title={info.getValue()}>
            {t(`activity.action.${info.getValue()}`)}
          </span>
        ),
        meta: { primary: true, className: "min-w-32" },
      }),
      column.display({
        id: "actor",
        header: () => t("activity.who"),
        cell: (info) => {
          const e = info.row.original;
          return (
            <span className="flex min-w-0 flex-col items-start gap-0.5">
              <span className="text-zinc-900 [overflow-wrap:anywhere]">{e.actor_label ?? (e.actor_id ? shortId(e.actor_id) : "—")}</span>
              <Badge tone={e.actor_type === "user" ? "indigo" : e.actor_type === "support" ? "amber" : "neutral"}>{t(`activity.actor.${e.actor_type}`)}</Badge>
            </span>
          );
        },
      }),
      column.display({
        id: "object",
        header: () => t("activity.object"),
        cell: (info) => {
          const e = info.row.original;
          if (!e.object_type && !e.object_id) return <span className="text-zinc-500">—</span>;
          const name = objectLabel(e, { t, locale, keyName, formatInstant: (iso) => formatDateTime(iso, timeZone, { seconds: false }) });
          return (
            <span className="flex min-w-0 flex-col items-start gap-0.5">
              {name && <span className="text-zinc-900 [overflow-wrap:anywhere]">{name}</span>}
              <span className="text-xs text-zinc-500" title={e.object_id ?? undefined}>
                {e.object_type ? objectTypeLabel(e.object_type, t) : ""}
                {e.object_id ? ` ${shortId(e.object_id, 12)}` : ""}
              </span>
            </span>
          );
        },
      }),
      column.display({
        id: "change",
        header: () => t("activity.change"),
        cell: (info) => {
          const lines = changeLines(info.row.original, { t, locale, keyName, formatInstant: (iso) => formatDateTime(iso, timeZone, { seconds: false }) });
          if (lines.length === 0) return <span className="text-zinc-500">—</span>;
          return (
            <ul className="space-y-0.5 text-xs" data-testid="activity-change">
              {lines.map((l) => (
                <li key={l.key} className="[overflow-wrap:anywhere]" title={l.key}>
                  <span className="text-zinc-500">{l.label}: </span>
                  {l.was !== undefined && (
                    <>
                      <span className="text-zinc-500">{l.was}</span>
                      <span className="text-zinc-500"> → </span>
                    </>
                  )}
                  <span className="text-zinc-900">{l.value}</span>
                </li>
              ))}
            </ul>
          );
        },
        meta: { className: "max-w-xs" },
      }),
      column.display({
        id: "from",
        header: () => t("activity.from"),
        cell: (info) => {
          const e = info.row.original;
          const agent = shortUserAgent(e.user_agent);
          if (!e.ip_address && !agent) return <span className="text-zinc-500">—</span>;
          return (
            <span className="flex min-w-0 flex-col items-start gap-0.5 text-xs">
              {e.ip_address && <span className="font-mono text-zinc-700">{e.ip_address}</span>}
              {agent && (
                <span className="text-zinc-500" title={e.user_agent ?? undefined}>
                  {agent}
                </span>
              )}
            </span>
          );
        },
      }),
    ],
    [t, locale, timeZone, keyName],
  );
  return <DataTable data={entries} columns={columns} caption={t("activity.listTitle")} getRowId={(e) => e.activity_id} rowTestId="activity-row" busy={busy} />;
}

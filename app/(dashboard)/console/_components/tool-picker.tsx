"use client";

import { useEffect, useId, useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ToolAccessBadges } from "@/components/catalog/access-badges";
import { PriceBadge } from "@/components/catalog/tool-meta";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { FieldLabel, TextInput } from "@/components/ui/form-controls";
import { Notice } from "@/components/ui/states";
import { discover, isRoutingCard, type CapabilityResult } from "@/lib/dashboard/discover";
import { dashboardSessionId } from "@/lib/dashboard/session-id";

// The catalog's ids: provider-scoped, dotted or slashed, no spaces.
const LOOKS_LIKE_TOOL_ID = /^[A-Za-z0-9_-]+([./:][A-Za-z0-9_-]+)+$/;

/** Choose a tool: type its id, or a few words to search for it (Discover) and pick from the list. */
export function ToolPicker({ apiKey, currentToolId, onPick }: { apiKey: string; currentToolId: string; onPick: (toolId: string, searchId?: string) => void }) {
  const { t, locale } = useI18n();
  const [text, setText] = useState(currentToolId);
  const inputId = useId();
  useEffect(() => setText(currentToolId), [currentToolId]);

  const search = useMutation({
    mutationFn: (query: string) => discover(apiKey, { query, limit: 8, view: "full", lang: locale, sessionId: dashboardSessionId() }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const value = text.trim();
    if (!value) return;
    if (LOOKS_LIKE_TOOL_ID.test(value)) {
      search.reset();
      onPick(value);
    } else {
      search.mutate(value);
    }
  }

  const candidates = (search.data?.results ?? []).filter((r): r is CapabilityResult => !isRoutingCard(r));
  return (
    <Card className="p-4 sm:p-5">
      <form onSubmit={submit} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="min-w-0 flex-1">
          <FieldLabel htmlFor={inputId} hint={t("console.toolHint")}>
            {t("console.tool")}
          </FieldLabel>
          <TextInput id={inputId} value={text} onChange={(e) => setText(e.target.value)} placeholder="builtin.convert.length" autoComplete="off" spellCheck={false} />
        </div>
        <Button type="submit" disabled={!text.trim() || search.isPending}>
          {search.isPending ? t("console.finding") : t("console.openTool")}
        </Button>
      </form>
      {search.isError && (
        <div className="mt-3">
          <Notice tone="error">{search.error.message}</Notice>
        </div>
      )}
      {search.isSuccess && (
        <div className="mt-3">
          {candidates.length === 0 ? (
            <p className="text-sm text-zinc-500">{t("console.noCandidates")}</p>
          ) : (
            <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200" aria-label={t("console.candidates")}>
              {candidates.map((c) => (
                <li key={c.tool_id}>
                  <button
                    type="button"
                    onClick={() => {
                      onPick(c.tool_id, search.data?.search_id);
                      search.reset();
                    }}
                    className="flex w-full flex-col gap-1 px-3 py-2 text-left hover:bg-zinc-50 sm:flex-row sm:items-center sm:justify-between"
                  >
                    <span className="min-w-0">
                      <span className="block text-sm font-medium text-zinc-900">{c.name}</span>
                      <code className="block truncate font-mono text-xs text-zinc-500">{c.tool_id}</code>
                      <ToolAccessBadges tool={c} className="mt-1" />
                    </span>
                    <PriceBadge rule={c.billing_rule} />
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </Card>
  );
}

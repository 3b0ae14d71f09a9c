"use client";

import { useEffect, useId, useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { ApiKeyPicker, RejectedKeyNotice } from "@/components/keys/api-key-picker";
import { Button } from "@/components/ui/button";
import { SearchIcon } from "@/components/ui/action-icons";
import { CopyableId } from "@/components/ui/copy-button";
import { ErrorState } from "@/components/ui/error-state";
import { FieldLabel, Select, TextInput } from "@/components/ui/form-controls";
import { EmptyState, LoadingBlock, Notice } from "@/components/ui/states";
import { useStoredApiKey } from "@/lib/dashboard/api-key-store";
import { discover, isRoutingCard, searchLimits, searchViews, type SearchView } from "@/lib/dashboard/discover";
import { formatCount, formatDuration } from "@/lib/dashboard/format";
import { localeNames } from "@/lib/dashboard/i18n";
import { KeyRequestError } from "@/lib/dashboard/key-client";
import { dashboardSessionId } from "@/lib/dashboard/session-id";
import { enumParam, intParam, useUrlParams } from "@/lib/dashboard/url-state";
import { ResultCard, RoutingResultCard } from "./result-card";

const EXAMPLES = {
  en: ["convert miles to kilometres", "monthly loan payment", "hash a string with sha256", "builtin.time.now"],
  zh: ["长度单位换算", "计算贷款月供", "人民币大写", "生成 UUID"],
} as const;

export function PlaygroundView({ userId, accountId }: { userId: string; accountId: string }) {
  const { t, locale } = useI18n();
  const store = useStoredApiKey(userId, accountId);
  const [params, update] = useUrlParams();
  const query = params.get("q")?.trim() ?? "";
  const view: SearchView = enumParam(params, "view", searchViews) ?? "full";
  const limit = intParam(params, "limit", 10, 100);
  const [draft, setDraft] = useState(query);
  const ids = { query: useId(), view: useId(), limit: useId() };

  // Back/forward or a shared link changes the query: show it in the box.
  useEffect(() => setDraft(query), [query]);

  const apiKey = store.key?.apiKey;
  const search = useQuery({
    queryKey: ["discover", apiKey, query, view, limit, locale],
    queryFn: ({ signal }) => discover(apiKey ?? "", { query, view, limit, lang: locale, sessionId: dashboardSessionId() }, signal),
    enabled: Boolean(apiKey && query),
    staleTime: 60_000,
    retry: (count, error) => !(error instanceof KeyRequestError) && count < 1,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    update({ q: draft.trim() || null });
  }

  return (
    <div className="space-y-6">
      <ApiKeyPicker store={store} accountId={accountId} />

      <form onSubmit={submit} role="search" aria-label={t("playground.searchLabel")} className="rounded-xl border border-zinc-200 bg-white p-4 shadow-xs sm:p-5">
        <div className="flex flex-col gap-3 lg:flex-row lg:items-end">
          <div className="min-w-0 flex-1">
            <FieldLabel htmlFor={ids.query}>{t("playground.query")}</FieldLabel>
            <TextInput
              id={ids.query}
              type="search"
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              placeholder={t("playground.queryPlaceholder")}
              autoComplete="off"
              maxLength={4000}
            />
          </div>
          <div className="grid grid-cols-2 gap-3 sm:flex sm:items-end">
            <div>
              <FieldLabel htmlFor={ids.view}>{t("playground.view")}</FieldLabel>
              <Select id={ids.view} value={view} onChange={(e) => update({ view: e.target.value === "full" ? null : e.target.value })}>
                <option value="full">{t("playground.viewFull")}</option>
                <option value="routing">{t("playground.viewRouting")}</option>
              </Select>
            </div>
            <div>
              <FieldLabel htmlFor={ids.limit}>{t("playground.limit")}</FieldLabel>
              <Select id={ids.limit} value={limit} onChange={(e) => update({ limit: e.target.value === "10" ? null : e.target.value })}>
                {[...new Set([...searchLimits, limit])].sort((a, b) => a - b).map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </Select>
            </div>
            <Button type="submit" variant="primary" className="col-span-2 sm:col-span-1" disabled={!draft.trim()}>
              <SearchIcon width={16} height={16} />
              {t("playground.search")}
            </Button>
          </div>
        </div>
        <p className="mt-3 text-xs text-zinc-500" data-testid="search-lang">
          {t("playground.langNote", { lang: localeNames[locale], code: locale })}
        </p>
      </form>

      <section aria-live="polite" aria-label={t("playground.results")}>
        {!store.key ? null : !query ? (
          <EmptyState
            title={t("playground.startTitle")}
            body={t("playground.startBody")}
            action={EXAMPLES[locale].map((example) => (
              <Button key={example} size="sm" onClick={() => update({ q: example })}>
                {example}
              </Button>
            ))}
          />
        ) : search.isPending ? (
          <LoadingBlock label={t("playground.searching")} rows={5} />
        ) : search.isError ? (
          search.error instanceof KeyRequestError && search.error.keyRejected ? (
            <RejectedKeyNotice store={store} message={search.error.message} />
          ) : (
            <ErrorState title={t("playground.errorTitle")} message={search.error.message} retryLabel={t("common.retry")} onRetry={() => void search.refetch()} />
          )
        ) : (
          <div className="space-y-3">
            <div className="flex flex-col gap-1 text-xs text-zinc-500 sm:flex-row sm:items-center sm:justify-between">
              <p data-testid="search-summary">
                {t("playground.summary", { total: search.data.total, ms: formatDuration(search.data.elapsed_time_ms, locale) })}
              </p>
              <p className="flex min-w-0 items-center gap-1">
                <span className="shrink-0">search_id</span>
                <CopyableId value={search.data.search_id} />
              </p>
            </div>
            {search.data.error_message && <Notice tone="warn">{search.data.error_message}</Notice>}
            {search.data.results.length === 0 ? (
              <EmptyState title={t("playground.noResultsTitle")} body={t("playground.noResultsBody")} testId="search-empty" />
            ) : (
              <ol className="space-y-3" data-testid="search-results">
                {search.data.results.map((result, index) => (
                  <li key={result.tool_id}>
                    {isRoutingCard(result) ? (
                      <RoutingResultCard rank={index + 1} card={result} searchId={search.data.search_id} />
                    ) : (
                      <ResultCard rank={index + 1} result={result} searchId={search.data.search_id} apiKey={apiKey ?? ""} />
                    )}
                  </li>
                ))}
              </ol>
            )}
          </div>
        )}
      </section>
    </div>
  );
}

"use client";

import Link from "next/link";
import { useState, type ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { useI18n } from "@/components/i18n/i18n-provider";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ErrorState } from "@/components/ui/error-state";
import { LoadingBlock } from "@/components/ui/states";
import type { Translate } from "@/lib/dashboard/i18n";
import { dayIn, formatCredits, formatDateTime, formatZonedDateTime } from "@/lib/dashboard/format";
import { type CreditStatement, type StatementLine, downloadStatementCsv, fetchStatement, statementQueryKey } from "@/lib/dashboard/statements";
import { StatementTargetControls, monthLabel, useStatementTarget } from "./statement-target";

const KINDS = ["paid", "bonus", "reward", "total"] as const;

function lineLabel(l: StatementLine, t: Translate): string {
  switch (l.entry_type) {
    case "consume_tool_search":
      return t("statements.search");
    case "consume_model_call":
      return t("statements.model");
    case "consume_payment_refund":
      return t("statements.paymentRefund");
    case "consume_tool_execute":
    case "refund_tool_execute": {
      if (!l.tool_id) return t("statements.unknownTool");
      const provider = l.provider_name ?? l.provider_id;
      return `${provider ? `${provider} · ` : ""}${l.tool_name ?? l.tool_id}`;
    }
    default:
      return t(`entry.${l.entry_type}`);
  }
}

/** Compact rows: the whole statement of a typical month fits one A4 page when printed. */
const th = "px-2 py-1 font-medium print:py-0.5";
const td = "px-2 py-1 print:py-0.5";

function Section({ title, section, t, fmt, testId }: { title: string; section: CreditStatement["grants"]; t: Translate; fmt: (v: number) => string; testId: string }) {
  return (
    <section className="break-inside-avoid" data-testid={testId}>
      <h2 className="mb-1 text-sm font-semibold text-zinc-900 print:text-[11px]">{title}</h2>
      {section.lines.length === 0 ? (
        <p className="px-2 text-xs text-zinc-500 print:text-[10px]">{t("statements.none")}</p>
      ) : (
        <table className="w-full text-sm print:text-[10px]">
          <thead className="border-b border-zinc-200 text-left text-xs text-zinc-500 print:text-[9px]">
            <tr>
              <th className={th}>{t("statements.item")}</th>
              <th className={`${th} text-right sm:w-20 print:w-12`}>{t("statements.entries")}</th>
              <th className={`${th} text-right sm:w-32 print:w-16`}>{t("statements.amount")}</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {section.lines.map((l) => (
              <tr key={`${l.entry_type}:${l.tool_id ?? ""}`}>
                <td className={`${td} [overflow-wrap:anywhere] print:[overflow-wrap:normal]`}>
                  {lineLabel(l, t)}
                  {l.kind && <span className="ml-1 text-xs text-zinc-500 print:text-[9px]">({t(`statements.kind.${l.kind}`)})</span>}
                </td>
                <td className={`${td} text-right tabular-nums text-zinc-600`}>{l.entry_count}</td>
                <td className={`${td} text-right tabular-nums`}>{fmt(l.amount_credits)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot className="border-t border-zinc-300 font-semibold">
            <tr>
              <td className={td}>
                {t("statements.sectionTotal")}
                <span className="ml-2 text-xs font-normal text-zinc-500 print:text-[9px]">
                  {t("statements.byKind", { paid: fmt(section.total.paid), bonus: fmt(section.total.bonus), reward: fmt(section.total.reward) })}
                </span>
              </td>
              <td className={td} />
              <td className={`${td} text-right tabular-nums`} data-testid={`${testId}-total`}>
                {fmt(section.total.total)}
              </td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}

/** Kinds down, opening and closing across: three columns, which a phone's width holds. */
function Balances({ s, t, fmt }: { s: CreditStatement; t: Translate; fmt: (v: number) => string }) {
  return (
    <section className="break-inside-avoid">
      <h2 className="mb-1 text-sm font-semibold text-zinc-900 print:text-[11px]">{t("statements.balances")}</h2>
      <div className="overflow-x-auto">
        <table className="w-full max-w-md text-sm print:text-[10px]">
          <thead className="border-b border-zinc-200 text-xs text-zinc-500 print:text-[9px]">
            <tr>
              <th className={`${th} text-left`}>{t("statements.kindHeader")}</th>
              <th className={`${th} text-right`}>{t("statements.opening")}</th>
              <th className={`${th} text-right`}>{t("statements.closing")}</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-100">
            {KINDS.map((kind) => (
              <tr key={kind} className={kind === "total" ? "border-t border-zinc-300 font-semibold" : ""}>
                <th scope="row" className={`${td} text-left font-medium whitespace-nowrap`}>
                  {t(`statements.kind.${kind}`)}
                </th>
                <td className={`${td} text-right tabular-nums whitespace-nowrap`} data-testid={`statement-opening-${kind}`}>
                  {fmt(s.opening[kind])}
                </td>
                <td className={`${td} text-right tabular-nums whitespace-nowrap`} data-testid={`statement-closing-${kind}`}>
                  {fmt(s.closing[kind])}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Reconciliation({ s, t, fmt }: { s: CreditStatement; t: Translate; fmt: (v: number) => string }) {
  const r = s.reconciliation;
  const steps: [string, string, number][] = [
    ["", t("statements.opening"), r.opening_credits],
    ["+", t("statements.grants"), r.grants_credits],
    ["−", t("statements.consumption"), r.consumption_credits],
    ["+", t("statements.refunds"), r.refunds_credits],
    ["−", t("statements.expiries"), r.expiries_credits],
    ["=", t("statements.expected"), r.expected_closing_credits],
    ["", t("statements.closing"), r.closing_credits],
  ];
  return (
    <section
      className={`break-inside-avoid rounded-lg border p-3 print:p-2 ${r.reconciled ? "border-emerald-200 bg-emerald-50/50" : "border-red-200 bg-red-50/50"}`}
      data-testid="statement-reconciliation"
    >
      <h2 className="mb-1 text-sm font-semibold text-zinc-900 print:text-[11px]">{t("statements.reconciliation")}</h2>
      <table className="w-full max-w-md text-sm print:text-[10px]">
        <tbody>
          {steps.map(([op, label, v]) => (
            <tr key={label} className={op === "=" ? "border-t border-zinc-300 font-semibold" : ""}>
              <td className="w-5 py-0.5 text-zinc-500">{op}</td>
              <td className="py-0.5">{label}</td>
              <td className="py-0.5 text-right tabular-nums">{fmt(v)}</td>
            </tr>
          ))}
          <tr className="font-semibold">
            <td />
            <td className="py-0.5">{t("statements.difference")}</td>
            <td className={`py-0.5 text-right tabular-nums ${r.difference_credits === 0 ? "" : "text-red-700"}`} data-testid="statement-difference">
              {fmt(r.difference_credits)}
            </td>
          </tr>
        </tbody>
      </table>
      <p className={`mt-2 text-sm font-medium print:mt-1 print:text-[10px] ${r.reconciled ? "text-emerald-800" : "text-red-800"}`} data-testid="statement-verdict">
        {r.reconciled ? `✓ ${t("statements.reconciled")}` : t("statements.notReconciled", { difference: fmt(r.difference_credits), n: Math.abs(Number(r.difference_credits)) })}
      </p>
      {r.problems.length > 0 && (
        <ul className="mt-1 space-y-0.5 text-xs print:text-[9px]" data-testid="statement-problems">
          {r.problems.map((p) => (
            <li key={`${p.ledger_entry_id}:${p.problem}`}>
              <span className="font-mono whitespace-nowrap">{p.ledger_entry_id}</span> (seq {p.seq}, {p.entry_type}): {t(`statements.problem.${p.problem}`)} — {fmt(p.difference_credits)}
            </li>
          ))}
          {r.problem_rows > r.problems.length && <li>{t("statements.problemsMore", { count: r.problem_rows })}</li>}
        </ul>
      )}
    </section>
  );
}

function Field({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-500 print:text-[9px]">{label}</dt>
      <dd className="text-sm font-medium text-zinc-900 print:text-[10px]" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/**
 * Printed pages carry their number ("1 / 2") and the document's name in the page margin, which
 * Chromium draws from `@page` margin boxes. The month and the id are kept to the characters ids
 * use, so nothing in them can end the CSS string.
 */
function PrintMargins({ s }: { s: CreditStatement }) {
  const safe = (v: string) => v.replace(/[^\w-]/g, "");
  const css = `@media print { @page {
    @bottom-left { content: "${safe(s.month)} · ${safe(s.account_id)}"; font: 8px ui-sans-serif, system-ui, sans-serif; color: #52525b; }
    @bottom-right { content: counter(page) " / " counter(pages); font: 8px ui-sans-serif, system-ui, sans-serif; color: #52525b; }
  } }`;
  return <style>{css}</style>;
}

/** The printable statement: the shell, the controls and the buttons are hidden in print (`print:hidden`). */
function StatementDocument({ s, generatedAt }: { s: CreditStatement; generatedAt: number }) {
  const { t, locale } = useI18n();
  const fmt = (v: number) => formatCredits(v, locale);
  const zoned = (iso: string) => formatZonedDateTime(iso, s.time_zone, locale);
  return (
    <article
      className="space-y-4 rounded-xl border border-zinc-200 bg-white p-4 shadow-xs sm:p-8 print:space-y-2.5 print:rounded-none print:border-0 print:p-0 print:shadow-none"
      data-testid="statement"
      aria-labelledby="statement-title"
    >
      <PrintMargins s={s} />
      <header className="flex flex-wrap items-start justify-between gap-3 border-b border-zinc-200 pb-3 print:pb-2">
        <div>
          <p className="text-xs font-semibold uppercase tracking-wide text-indigo-700 print:text-[9px]">Tollgate</p>
          <h1 id="statement-title" className="text-xl font-semibold text-zinc-900 print:text-base">
            {t("statements.docTitle")} — {monthLabel(s.month, locale)}
          </h1>
        </div>
        <Badge tone={s.final ? "green" : "amber"}>{s.final ? t("statements.final") : t("statements.openStatus")}</Badge>
      </header>
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-2 lg:grid-cols-[max-content_repeat(3,minmax(0,1fr))] print:grid-cols-[max-content_repeat(3,minmax(0,1fr))] print:gap-y-1">
        <Field label={t("statements.account")} testId="statement-account">
          <span className="break-words">{s.account_name || s.account_id}</span>
          <span className="block font-mono text-xs font-normal whitespace-nowrap text-zinc-500 print:text-[9px]">{s.account_id}</span>
        </Field>
        <Field label={t("statements.period")} testId="statement-period">
          <span className="whitespace-nowrap tabular-nums">
            {dayIn(s.period_start, s.time_zone)} – {dayIn(s.period_end, s.time_zone, { exclusiveEnd: true })}
          </span>
          <span className="block text-xs font-normal text-zinc-500 print:text-[9px]" data-testid="statement-tz-shown">
            {s.time_zone}
          </span>
        </Field>
        <Field label={t("statements.generated")} testId="statement-finalized">
          {s.finalized_at ? zoned(s.finalized_at) : t("statements.notFinal")}
        </Field>
        <Field label={t("statements.generatedAt")} testId="statement-generated-at">
          {zoned(new Date(generatedAt).toISOString())}
        </Field>
      </dl>
      <p className="text-xs text-zinc-600 print:text-[9px]" data-testid="statement-bounds">
        {t("statements.bounds", { start: formatDateTime(s.period_start, s.time_zone, { seconds: false }), end: formatDateTime(s.period_end, s.time_zone, { seconds: false }), zone: s.time_zone })}
      </p>
      {!s.final && <p className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900 print:px-2 print:py-1 print:text-[9px]">{t("statements.open.note")}</p>}

      <Balances s={s} t={t} fmt={fmt} />
      <div className="grid gap-4 lg:grid-cols-2 print:grid-cols-2 print:gap-3">
        <Section title={t("statements.grants")} section={s.grants} t={t} fmt={fmt} testId="statement-grants" />
        <Section title={t("statements.refunds")} section={s.refunds} t={t} fmt={fmt} testId="statement-refunds" />
      </div>
      <Section title={t("statements.consumption")} section={s.consumption} t={t} fmt={fmt} testId="statement-consumption" />
      <Section title={t("statements.expiries")} section={s.expiries} t={t} fmt={fmt} testId="statement-expiries" />
      <Reconciliation s={s} t={t} fmt={fmt} />

      <footer className="space-y-1 border-t border-zinc-200 pt-3 text-xs text-zinc-600 print:pt-2 print:text-[9px]">
        <p>
          {s.first_seq === null ? t("statements.noRows") : t("statements.ledgerRows", { first: s.first_seq, last: s.last_seq ?? s.first_seq, count: s.entry_count })}{" "}
          {t("statements.amountsNote", { tz: s.time_zone })} {t("statements.perZone")}
        </p>
        <p>
          <span className="font-medium text-zinc-800">{t("statements.hash")}:</span>{" "}
          {s.content_hash ? (
            <span className="font-mono break-all print:break-normal print:whitespace-nowrap" data-testid="statement-hash">
              {s.content_hash}
            </span>
          ) : (
            <span data-testid="statement-hash">{t("statements.open.noHash")}</span>
          )}
        </p>
      </footer>
    </article>
  );
}

export function StatementView({ month, isSupport }: { month: string; isSupport: boolean }) {
  const { t } = useI18n();
  const state = useStatementTarget();
  const { target } = state;
  const [csvError, setCsvError] = useState<string | null>(null);
  const query = useQuery({ queryKey: statementQueryKey(month, target), queryFn: ({ signal }) => fetchStatement(month, target, signal), enabled: state.ready });
  return (
    <div className="space-y-5 print:space-y-0">
      <div className="space-y-3 print:hidden">
        <Link href={`/statements${state.linkQuery}`} className="text-sm font-medium text-indigo-700 hover:underline">
          ← {t("statements.back")}
        </Link>
        <div className="flex flex-wrap items-end justify-between gap-3">
          <StatementTargetControls state={state} isSupport={isSupport} />
          <div className="flex gap-2">
            <Button onClick={() => void downloadStatementCsv(month, target).catch((e: Error) => setCsvError(e.message))} disabled={!query.data} data-testid="statement-csv">
              {t("statements.csv")}
            </Button>
            <Button variant="primary" onClick={() => window.print()} disabled={!query.data} data-testid="statement-print">
              {t("statements.print")}
            </Button>
          </div>
        </div>
      </div>
      {csvError && <p className="text-sm text-red-700 print:hidden">{csvError}</p>}
      {query.isPending ? (
        <LoadingBlock label={t("statements.loading")} rows={6} />
      ) : query.isError ? (
        <ErrorState title={t("statements.errorTitle")} message={query.error.message} retryLabel={t("common.retry")} onRetry={() => void query.refetch()} />
      ) : (
        <StatementDocument s={query.data} generatedAt={query.dataUpdatedAt} />
      )}
    </div>
  );
}

import { type Cell, csvLine, headerLine } from "../audit/csv";
import type { ReconciliationReport } from "./reconcile-payments";

/** The CSV's columns (docs/billing.md, Reconciliation): one `line` record per line, then one `total` record per currency. */
export const RECONCILIATION_CSV_COLUMNS = [
  "record",
  "status",
  "kind",
  "created_at",
  "account_id",
  "currency",
  "amount_minor",
  "fee_minor",
  "net_minor",
  "stripe_source_amount_minor",
  "ledger_amount_minor",
  "credits",
  "payment_id",
  "reversal_id",
  "ledger_entry_ids",
  "stripe_balance_transaction_id",
  "stripe_source_id",
  "stripe_payment_intent_id",
  "stripe_event_id",
  "detail",
] as const;

/**
 * The report as CSV, written by the exports' own writer (lib/audit/csv.ts: RFC 4180, formula guard).
 * A total's amount, fee and net are the currency's gross, fees and net; the payouts and the credits
 * granted and reversed are in its detail.
 */
export function reconciliationCsv(report: ReconciliationReport): string {
  let out = headerLine([...RECONCILIATION_CSV_COLUMNS]);
  for (const l of report.lines) {
    const cells: Cell[] = [
      "line",
      l.status,
      l.kind,
      l.created_at,
      l.account_id,
      l.currency,
      l.amount_minor,
      l.fee_minor,
      l.net_minor,
      l.stripe_source_amount_minor,
      l.ledger_amount_minor,
      l.credits,
      l.payment_id,
      l.reversal_id,
      l.ledger_entry_ids.join(" "),
      l.stripe_balance_transaction_id,
      l.stripe_source_id,
      l.stripe_payment_intent_id,
      l.stripe_event_id,
      l.detail,
    ];
    out += csvLine(cells);
  }
  for (const t of report.totals) {
    const detail = `payouts_minor=${t.payouts_minor}; credits_granted=${t.credits_granted}; credits_reversed=${t.credits_reversed}; lines=${t.lines}; unmatched=${t.unmatched}`;
    out += csvLine(["total", null, null, report.to, report.account_id, t.currency, t.gross_minor, t.fee_minor, t.net_minor, null, null, null, null, null, null, null, null, null, null, detail]);
  }
  return out;
}

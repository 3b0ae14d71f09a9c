import type { CreditStatement, KindAmounts, StatementLine, StatementSection } from "./credit-statements";
import { type Cell, csvLine, headerLine } from "./csv";

export const STATEMENT_CSV_HEADER = ["section", "item", "kind", "amount_credits", "entry_count", "detail"];

const KINDS = ["paid", "bonus", "reward", "total"] as const;

/** A line's item: its entry type, and for a Call's tool `<entry type>:<tool id>`. */
export function lineItem(l: StatementLine): string {
  return l.tool_id ? `${l.entry_type}:${l.tool_id}` : l.entry_type;
}

/**
 * The statement as CSV, one line per figure: `section,item,kind,amount_credits,entry_count,detail`.
 * The `statement` lines carry what identifies it (account, month, tz, period, status, hash) in `detail`.
 * Amounts are the exact decimals the hash covers.
 */
export function statementCsv(s: CreditStatement): string {
  const b = s.statement;
  const r = b.reconciliation;
  let csv = headerLine(STATEMENT_CSV_HEADER);
  const line = (cells: Cell[]) => {
    csv += csvLine(cells);
  };
  const meta: [string, string | null][] = [
    ["account_id", b.account_id],
    ["account_name", b.account_name],
    ["month", b.month],
    ["time_zone", b.time_zone],
    ["period_start", b.period_start],
    ["period_end", b.period_end],
    ["status", s.final ? "final" : "open"],
    ["content_hash", s.content_hash],
  ];
  for (const [item, value] of meta) line(["statement", item, null, null, null, value]);
  const balance = (section: string, k: KindAmounts) => {
    for (const kind of KINDS) line([section, "balance", kind, k[kind], null, null]);
  };
  const section = (name: string, sec: StatementSection) => {
    for (const l of sec.lines) {
      const detail = [l.provider_name ?? l.provider_id, l.tool_name].filter(Boolean).join(" / ") || null;
      line([name, lineItem(l), l.kind ?? "total", l.amount_credits, l.entry_count, detail]);
    }
    for (const kind of KINDS) line([name, "total", kind, sec.total[kind], null, null]);
  };
  balance("opening", b.opening);
  section("grants", b.grants);
  section("consumption", b.consumption);
  section("refunds", b.refunds);
  section("expiries", b.expiries);
  balance("closing", b.closing);
  const figures: [string, string][] = [
    ["opening", r.opening_credits],
    ["grants", r.grants_credits],
    ["consumption", r.consumption_credits],
    ["refunds", r.refunds_credits],
    ["expiries", r.expiries_credits],
    ["expected_closing", r.expected_closing_credits],
    ["closing", r.closing_credits],
    ["difference", r.difference_credits],
  ];
  for (const [item, amount] of figures) line(["reconciliation", item, "total", amount, null, null]);
  line(["reconciliation", "reconciled", null, null, null, r.reconciled ? "true" : "false"]);
  for (const p of r.problems) line(["reconciliation", `problem:${p.ledger_entry_id}`, "total", p.difference_credits, null, `${p.problem} (seq ${p.seq}, expected ${p.expected_credits})`]);
  for (const p of b.payments ?? []) {
    line(["payments", p.payment_id, "paid", p.credits, null, `${p.amount_minor} ${p.currency}; payment intent ${p.stripe_payment_intent_id ?? "-"}; ledger ${p.ledger_entry_id}`]);
  }
  for (const v of b.payment_reversals ?? []) {
    line(["payment_reversals", v.stripe_id, "paid", v.credits_taken, v.ledger_entry_ids.length, `${v.kind} of ${v.payment_id}: ${v.amount_minor} ${v.currency}, ${v.credits} credits in all; ledger ${v.ledger_entry_ids.join(" ") || "-"}`]);
  }
  return csv;
}

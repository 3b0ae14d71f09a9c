import { z } from "@hono/zod-openapi";
import { ledgerEntryTypes } from "../../db/schema";
import { type CreditStatement, type KindAmounts, type StatementSection, chainProblems } from "../../audit/credit-statements";
import { TZ_DESCRIPTION } from "../../audit/query-schemas";
import { creditsToNumber } from "../../money";

/**
 * The monthly statement's request and response shapes, written once for validation, the OpenAPI
 * description and the dashboard's types. Amounts are exact decimals in the domain and the stored
 * body; they become JSON numbers here, at the response boundary.
 */

const tz = z.string().max(64).optional().openapi({ description: `${TZ_DESCRIPTION} Accounts have no time zone setting: the default is UTC.` });
const accountId = z
  .string()
  .max(64)
  .optional()
  .openapi({ description: "Support users only: the account whose statement to read (`acc_…`); the read is recorded in the support access log. Other users get 403." });

export const StatementQuery = z.object({ tz, account_id: accountId });
export const StatementParams = z.object({
  month: z.string().max(32).openapi({ param: { name: "month", in: "path" }, description: "YYYY-MM (a month in tz)", example: "2026-10" }),
});

const kinds = ["paid", "bonus", "reward"] as const;

const KindAmountsSchema = z
  .object({ paid: z.number(), bonus: z.number(), reward: z.number(), total: z.number() })
  .openapi("StatementKindAmounts", { description: "Credits by kind; `total` of opening and closing is the balance chain's balance_after at the cut" });

const SectionSchema = z
  .object({
    lines: z.array(
      z.object({
        entry_type: z.enum(ledgerEntryTypes),
        kind: z.enum(kinds).nullable().openapi({ description: "The kind a grant feeds or an expiry drains; null for consumption and refunds (they may span kinds)" }),
        provider_id: z.string().nullable(),
        provider_name: z.string().nullable(),
        tool_id: z.string().nullable().openapi({ description: "consume_tool_execute and refund_tool_execute: the Call's tool; other types have one line each" }),
        tool_name: z.string().nullable(),
        entry_count: z.number().int(),
        amount_credits: z.number().openapi({ description: "Positive, in the section's direction" }),
      }),
    ),
    total: KindAmountsSchema,
  })
  .openapi("StatementSection");

export const CreditStatementSchema = z
  .object({
    account_id: z.string(),
    account_name: z.string(),
    month: z.string(),
    time_zone: z.string(),
    period_start: z.string().openapi({ description: "The month's start in time_zone, as a UTC instant (inclusive)" }),
    period_end: z.string().openapi({ description: "The next month's start, as a UTC instant (exclusive)" }),
    first_seq: z.number().int().nullable(),
    last_seq: z.number().int().nullable(),
    entry_count: z.number().int(),
    opening: KindAmountsSchema,
    grants: SectionSchema,
    consumption: SectionSchema,
    refunds: SectionSchema,
    expiries: SectionSchema,
    closing: KindAmountsSchema,
    reconciliation: z.object({
      opening_credits: z.number(),
      grants_credits: z.number(),
      consumption_credits: z.number(),
      refunds_credits: z.number(),
      expiries_credits: z.number(),
      expected_closing_credits: z.number().openapi({ description: "opening + grants − consumption + refunds − expiries" }),
      closing_credits: z.number(),
      difference_credits: z.number().openapi({ description: "closing − expected_closing" }),
      reconciled: z.boolean().openapi({ description: "No difference and no problem row" }),
      problems: z.array(
        z.object({
          ledger_entry_id: z.string(),
          seq: z.number().int(),
          created_at: z.string(),
          entry_type: z.string(),
          problem: z.enum(chainProblems),
          amount_credits: z.number(),
          balance_before: z.number(),
          balance_after: z.number(),
          expected_credits: z.number(),
          difference_credits: z.number(),
        }),
      ),
      problem_rows: z.number().int(),
    }),
    payments: z
      .array(
        z.object({
          payment_id: z.string(),
          stripe_payment_intent_id: z.string().nullable(),
          amount_minor: z.number().int(),
          currency: z.string(),
          credits: z.number(),
          ledger_entry_id: z.string().openapi({ description: "The grant's `grant_payment_recharge` row, one of the month's" }),
          succeeded_at: z.string().nullable(),
        }),
      )
      .optional()
      .openapi({ description: "The month's purchases through Stripe, by the grant's ledger row; absent from statements made final before payments were listed" }),
    payment_reversals: z
      .array(
        z.object({
          reversal_id: z.string(),
          kind: z.string().openapi({ description: "refund or dispute_lost" }),
          stripe_id: z.string().openapi({ description: "Stripe's refund (`re_…`) or dispute (`dp_…`) id" }),
          payment_id: z.string(),
          amount_minor: z.number().int(),
          currency: z.string(),
          credits: z.number().openapi({ description: "What the reversal takes back in all" }),
          credits_taken: z.number().openapi({ description: "What the month's `consume_payment_refund` rows took of it" }),
          ledger_entry_ids: z.array(z.string()),
          created_at: z.string(),
        }),
      )
      .optional()
      .openapi({ description: "Refunds and lost disputes recorded in the month or taken by its rows; absent like payments" }),
    final: z.boolean().openapi({ description: "The month has ended in time_zone and all its hours are sealed: stored, immutable, served as stored" }),
    content_hash: z.string().nullable().openapi({ description: "SHA-256 (hex) of the stored statement's canonical JSON (sorted keys, amounts as exact decimal strings); null while open" }),
    finalized_at: z.string().nullable(),
  })
  .openapi("CreditStatement");

export const CreditStatementListSchema = z
  .object({
    time_zone: z.string(),
    items: z.array(
      z.object({
        month: z.string(),
        period_start: z.string(),
        period_end: z.string(),
        status: z.enum(["open", "final"]),
        content_hash: z.string().nullable(),
      }),
    ),
  })
  .openapi("CreditStatementList");

export type CreditStatementResponse = z.infer<typeof CreditStatementSchema>;

const num = (v: string) => creditsToNumber(v);
const kindNumbers = (k: KindAmounts) => ({ paid: num(k.paid), bonus: num(k.bonus), reward: num(k.reward), total: num(k.total) });
const sectionNumbers = (s: StatementSection) => ({
  lines: s.lines.map((l) => ({ ...l, amount_credits: num(l.amount_credits) })),
  total: kindNumbers(s.total),
});

/** The response of a statement: its exact amounts as JSON numbers. */
export function statementResponse(s: CreditStatement): CreditStatementResponse {
  const b = s.statement;
  const r = b.reconciliation;
  return {
    ...b,
    opening: kindNumbers(b.opening),
    grants: sectionNumbers(b.grants),
    consumption: sectionNumbers(b.consumption),
    refunds: sectionNumbers(b.refunds),
    expiries: sectionNumbers(b.expiries),
    closing: kindNumbers(b.closing),
    payments: b.payments?.map((p) => ({ ...p, credits: num(p.credits) })),
    payment_reversals: b.payment_reversals?.map((v) => ({ ...v, credits: num(v.credits), credits_taken: num(v.credits_taken) })),
    reconciliation: {
      ...r,
      opening_credits: num(r.opening_credits),
      grants_credits: num(r.grants_credits),
      consumption_credits: num(r.consumption_credits),
      refunds_credits: num(r.refunds_credits),
      expiries_credits: num(r.expiries_credits),
      expected_closing_credits: num(r.expected_closing_credits),
      closing_credits: num(r.closing_credits),
      difference_credits: num(r.difference_credits),
      problems: r.problems.map((p) => ({
        ...p,
        amount_credits: num(p.amount_credits),
        balance_before: num(p.balance_before),
        balance_after: num(p.balance_after),
        expected_credits: num(p.expected_credits),
        difference_credits: num(p.difference_credits),
      })),
    },
    final: s.final,
    content_hash: s.content_hash,
    finalized_at: s.finalized_at,
  };
}

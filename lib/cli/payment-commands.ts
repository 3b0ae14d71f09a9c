import { getPayment, listPayments, ownersOfPayment } from "../payments/payments";
import { notFound } from "../errors";
import { OPERATOR } from "../accounts/activity";
import { applyMissingGrant, reconcilePayments } from "../payments/reconcile-payments";
import { reconciliationCsv } from "../payments/reconciliation-csv";
import { paymentStatuses, type PaymentStatus } from "../vocab/payments";
import { oneOf, optStr, str, UsageError, type CommandSpec } from "./command-kit";

/** `payments list|show|reconcile`: purchases of credits through Stripe, with their grants, receipts and reversals (docs/billing.md). */
export const paymentCommands: Record<string, CommandSpec> = {
  "payments list": {
    usage: `payments list --account ID [--status ${paymentStatuses.join("|")}] [--page N] [--page-size N (default 20, at most 100)]`,
    options: { account: { type: "string" }, status: { type: "string" }, page: { type: "string" }, "page-size": { type: "string" } },
    run: (db, v) => {
      const status = optStr(v, "status");
      const number = (name: string, fallback: number, max: number) => {
        const raw = optStr(v, name);
        if (raw === undefined) return fallback;
        if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new UsageError(`--${name} must be an integer from 1 to ${max}`);
        return Number(raw);
      };
      return listPayments(db, str(v, "account"), {
        status: status === undefined ? undefined : oneOf<PaymentStatus>(status, paymentStatuses, "status"),
        page: number("page", 1, 100_000),
        pageSize: number("page-size", 20, 100),
      });
    },
  },
  "payments show": {
    usage: "payments show --id PAYMENT_ID",
    options: { id: { type: "string" } },
    run: async (db, v) => {
      const id = str(v, "id");
      const [accountId] = await ownersOfPayment(db, id);
      if (!accountId) throw notFound(`Payment ${id} not found`);
      return getPayment(db, accountId, id);
    },
  },
  "payments reconcile": {
    usage:
      "payments reconcile --from YYYY-MM-DD --to YYYY-MM-DD [--account ID] [--csv]  (UTC, [from, to); every account by default) | " +
      "payments reconcile --apply TXN_OR_PAYMENT_INTENT_ID [--confirm]  (grant a charge Stripe took whose grant never landed; without --confirm, says what it would grant)",
    options: { from: { type: "string" }, to: { type: "string" }, account: { type: "string" }, csv: { type: "boolean" }, apply: { type: "string" }, confirm: { type: "boolean" } },
    run: async (db, v) => {
      const apply = optStr(v, "apply");
      if (apply !== undefined) return applyMissingGrant(db, { id: apply, confirm: v.confirm === true, actor: OPERATOR });
      // The operator reads Stripe as it is now, not the API's listing of the last minute.
      const report = await reconcilePayments(db, { from: str(v, "from"), to: str(v, "to"), accountId: optStr(v, "account") }, undefined, { cache: null });
      // A string is printed as it is (lib/cli/main.ts).
      return v.csv === true ? reconciliationCsv(report) : report;
    },
  },
};

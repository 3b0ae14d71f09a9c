import { getPayment, listPayments, ownersOfPayment } from "../billing/payments";
import { notFound } from "../errors";
import { paymentStatuses, type PaymentStatus } from "../vocab/payments";
import { oneOf, optStr, str, UsageError, type CommandSpec } from "./command-kit";

/** `payments list|show`: purchases of credits through Stripe, with their grants, receipts and reversals (docs/billing.md). */
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
};

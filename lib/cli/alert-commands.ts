import { getAlertSettings, setAlertSettings, type AlertSettingsChange } from "../alerts/settings";
import { requireAccount } from "../accounts/require-account";
import { OPERATOR } from "../accounts/activity";
import { optStr, str, UsageError, type CommandSpec } from "./command-kit";

/** `--budget-percent 50,80,100` (or `none`) as numbers; the domain checks the range. */
function percents(value: string): number[] {
  if (value === "none") return [];
  const parts = value.split(",").map((p) => p.trim());
  if (parts.some((p) => !/^\d+$/.test(p))) throw new UsageError("--budget-percent must be comma-separated integers from 1 to 100 (e.g. 50,80,100), or none");
  return parts.map(Number);
}

export const alertCommands: Record<string, CommandSpec> = {
  "alerts set": {
    usage: "alerts set --account ID [--low-balance N|none] [--budget-percent 50,80,100|none]",
    options: { account: { type: "string" }, "low-balance": { type: "string" }, "budget-percent": { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      const low = optStr(v, "low-balance");
      const budget = optStr(v, "budget-percent");
      if (low === undefined && budget === undefined) throw new UsageError("give --low-balance and/or --budget-percent");
      const change: AlertSettingsChange = {};
      if (low !== undefined) change.lowBalanceCredits = low === "none" ? null : low;
      if (budget !== undefined) change.budgetPercents = percents(budget);
      await requireAccount(db, accountId);
      return setAlertSettings(db, { accountId, change, actor: OPERATOR });
    },
  },
  "alerts show": {
    usage: "alerts show --account ID",
    options: { account: { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      await requireAccount(db, accountId);
      return getAlertSettings(db, { accountId });
    },
  },
};

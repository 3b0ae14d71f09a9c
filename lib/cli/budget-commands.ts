import { sql } from "drizzle-orm";
import { rows } from "../db/row-sql";
import { budgetPeriods, type BudgetPeriod, type BudgetScope } from "../db/schema";
import { listAllBudgets, listBudgets, removeBudget, setBudget } from "../billing/budgets";
import { OPERATOR } from "../accounts/activity";
import { oneOf, optStr, str, UsageError, type CommandSpec } from "./command-kit";

/** `budgets set|list|remove`: spend budgets per account, API key or OAuth client (docs/billing.md). */
export const budgetCommands: Record<string, CommandSpec> = {
  "budgets set": {
    usage: "budgets set (--account ID | --key ID | --client ID --account ID) --credits N --period day|week|month|none [--tz ZONE]",
    options: { account: { type: "string" }, key: { type: "string" }, client: { type: "string" }, credits: { type: "string" }, period: { type: "string" }, tz: { type: "string" } },
    run: async (db, v) => {
      const key = optStr(v, "key");
      const client = optStr(v, "client");
      if (key && client) throw new UsageError("give --key or --client, not both");
      let scope: BudgetScope = "account";
      let accountId = optStr(v, "account");
      if (key) {
        scope = "api_key";
        if (!/^[0-9a-f-]{36}$/i.test(key)) throw new UsageError("--key must be an API key id (uuid)");
        const found = rows<{ account_id: string }>(await db.execute(sql`SELECT account_id FROM api_keys WHERE id = ${key}::uuid`))[0];
        if (!found) throw new UsageError(`API key ${key} not found`);
        if (accountId && accountId !== found.account_id) throw new UsageError(`API key ${key} belongs to another account`);
        accountId = found.account_id;
      } else if (client) {
        scope = "oauth_client";
        if (!accountId) throw new UsageError("--client needs --account: an OAuth client's budget is per account");
      }
      if (!accountId) throw new UsageError("--account is required (or --key)");
      return setBudget(db, {
        accountId,
        scope,
        scopeId: key ?? client,
        limitCredits: str(v, "credits"),
        period: oneOf<BudgetPeriod>(str(v, "period"), budgetPeriods, "period"),
        timeZone: optStr(v, "tz"),
        actor: OPERATOR,
      });
    },
  },
  "budgets list": {
    usage: "budgets list [--account ID]",
    options: { account: { type: "string" } },
    run: async (db, v) => {
      const accountId = optStr(v, "account");
      return { items: accountId ? (await listBudgets(db, accountId)).map((b) => ({ account_id: accountId, ...b })) : await listAllBudgets(db) };
    },
  },
  "budgets remove": {
    usage: "budgets remove --id BUDGET_ID",
    options: { id: { type: "string" } },
    run: (db, v) => removeBudget(db, { budgetId: str(v, "id"), actor: OPERATOR }),
  },
};

import type { CommandSpec } from "./command-kit";
import { alertCommands } from "./alert-commands";
import { budgetCommands } from "./budget-commands";
import { webhookCommands } from "./webhook-commands";

/**
 * Spend controls in the admin CLI: budgets, alerts, webhooks. Each group lives in its own module
 * and is merged here.
 */
export const spendCommands: Record<string, CommandSpec> = { ...budgetCommands, ...alertCommands, ...webhookCommands };

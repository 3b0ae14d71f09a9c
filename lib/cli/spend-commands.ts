import type { CommandSpec } from "./command-kit";

/**
 * Spend controls in the admin CLI: budgets, alerts, webhooks. Each group lives in its own module
 * and is merged here.
 */
export const spendCommands: Record<string, CommandSpec> = {};

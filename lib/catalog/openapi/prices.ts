// `--price` and `--price-per-operation`: the billing rule of each imported operation.
import { BillingRuleSchema, type BillingRule } from "../manifest";
import type { Finding, OpenApiImportOptions } from "./types";
import type { OperationTool } from "./operation";

/** `--price` for every tool, or the `--price-per-operation` map (credits or a rule, by operationId or tool id); the rest free. */
export function billingRules(tools: (OperationTool & { id: string })[], options: OpenApiImportOptions, errors: Finding[]): Map<string, BillingRule> {
  const free: BillingRule = { unit: "free", amount_credits: 0 };
  const perCall = (credits: number): BillingRule => (credits > 0 ? { unit: "call", amount_credits: credits } : free);
  const rules = new Map(tools.map((t) => [t.id, options.priceCredits ? perCall(options.priceCredits) : free]));
  for (const [key, value] of Object.entries(options.pricePerOperation ?? {})) {
    const targets = tools.filter((t) => t.id === key || t.operationId === key);
    const where = `(--price-per-operation) ${key}`;
    if (targets.length === 0) {
      errors.push({ pointer: where, message: "names no imported operation (give an operationId or a tool id)" });
      continue;
    }
    const parsed = typeof value === "number" ? BillingRuleSchema.safeParse(perCall(value)) : BillingRuleSchema.safeParse(value);
    if (!parsed.success) {
      errors.push({ pointer: where, message: parsed.error.issues.map((i) => `${i.path.join(".") || "rule"}: ${i.message}`).join("; ") });
      continue;
    }
    for (const t of targets) rules.set(t.id, parsed.data);
  }
  return rules;
}

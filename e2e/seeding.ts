import type { Page } from "@playwright/test";
import { adminCommand, seedUser, type SeededUser } from "./admin";
import { expect } from "./fixtures";

/**
 * What several specs seed the same way: a paid Call through the public API, the signed-in user's
 * dashboard token, an Agent Runtime client and the delegation token it exchanges for a run, and an
 * owner whose account has something on every dashboard page.
 */

/** Calls a tool with `token` (an API key or any bearer token); the Call must succeed. Its execution id. */
export async function callTool(baseURL: string, token: string, toolId: string, parameters: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${baseURL}/api/v1/tools/execute`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ tool_id: toolId, parameters }),
  });
  const body = (await res.json()) as { execution_id?: string };
  expect(res.status, `${toolId}: ${JSON.stringify(body)}`).toBe(200);
  return body.execution_id ?? "";
}

/** The signed-in user's dashboard API token (the one the pages use). */
export async function dashboardToken(page: Page): Promise<string> {
  const res = await page.request.get("/api/dashboard/token");
  expect(res.status()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface AgentRuntime {
  client_id: string;
  client_secret: string;
}

/** A confidential OAuth client allowed to exchange a user's token for delegation tokens. */
export async function createAgentRuntime(name: string): Promise<AgentRuntime> {
  return (await adminCommand(["clients", "create", "--name", name, "--type", "confidential", "--grant", "token_exchange", "--agent-runtime"])) as AgentRuntime;
}

/** The runtime exchanges the user's access token (`subject`) for a delegation token carrying `runId`. */
export async function delegationToken(
  baseURL: string,
  runtime: AgentRuntime,
  subject: string,
  run: { runId: string; model: string; maxCredits?: string },
): Promise<string> {
  const res = await fetch(`${baseURL}/api/v1/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${runtime.client_id}:${runtime.client_secret}`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: subject,
      subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
      resource: `${baseURL}/api/v1`,
      scope: "tools:execute",
      model: run.model,
      run_id: run.runId,
      ...(run.maxCredits ? { max_credits: run.maxCredits } : {}),
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface ActiveOwner {
  owner: SeededUser & { apiKey: string; apiKeyId: string };
  /** The first Call's execution id. */
  executionId: string;
  runId: string;
  /** An access token of the owner's (what the run was delegated from). */
  subject: string;
}

/**
 * An owner whose account has something on every page: three Calls from a key named
 * "research agent", a monthly budget of 50 credits kept in `budgetZone`, and an agent run
 * (capped at 5 credits) with one Call of its own.
 */
export async function seedActiveOwner(baseURL: string, options: { label: string; credits: number; budgetZone: string }): Promise<ActiveOwner> {
  const owner = await seedUser({ label: options.label, credits: options.credits });
  const key = (await adminCommand(["keys", "create", "--account", owner.accountId, "--name", "research agent"])) as { api_key: string; api_key_id: string };
  const executionId = await callTool(baseURL, key.api_key, "builtin.finance.compound_interest", { principal: 1000, annual_rate_percent: 5, years: 2 });
  await callTool(baseURL, key.api_key, "builtin.math.evaluate", { expression: "2 + 3 * 4" });
  await callTool(baseURL, key.api_key, "builtin.convert.temperature", { value: 100, from: "C", to: "F" });
  await adminCommand(["budgets", "set", "--account", owner.accountId, "--credits", "50", "--period", "month", "--tz", options.budgetZone]);

  const runtime = await createAgentRuntime(`${options.label} runtime`);
  const { access_token: subject } = (await adminCommand(["tokens", "issue", "--user", owner.userId, "--account", owner.accountId])) as { access_token: string };
  const runId = `run-${options.label}-${owner.accountId.slice(-6)}`;
  const delegation = await delegationToken(baseURL, runtime, subject, { runId, model: `${options.label}-model`, maxCredits: "5" });
  await callTool(baseURL, delegation, "builtin.finance.loan_payment", { principal: 2000, annual_rate_percent: 3, months: 12 });
  return { owner: { ...owner, apiKey: key.api_key, apiKeyId: key.api_key_id }, executionId, runId, subject };
}

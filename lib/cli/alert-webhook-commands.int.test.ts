import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { seedAccount } from "../testing/fixtures";
import { webhookEndpoints } from "../db/schema";
import { runCommand, UsageError } from "./commands";

const { db } = await createTestDatabase();
const cli = (...argv: string[]) => runCommand(db, argv) as Promise<Record<string, unknown>>;

describe("alerts CLI", () => {
  it("alerts set changes what it is given and keeps the rest; alerts show reads it (defaults before any set)", async () => {
    const { accountId } = await seedAccount(db);
    expect(await cli("alerts", "show", "--account", accountId)).toEqual({ account_id: accountId, low_balance_credits: null, budget_percents: [50, 80, 100], updated_at: null });
    expect(await cli("alerts", "set", "--account", accountId, "--low-balance", "12.5")).toMatchObject({ low_balance_credits: 12.5, budget_percents: [50, 80, 100] });
    expect(await cli("alerts", "set", "--account", accountId, "--budget-percent", "100,25,80,80")).toMatchObject({ low_balance_credits: 12.5, budget_percents: [25, 80, 100] });
    expect(await cli("alerts", "set", "--account", accountId, "--low-balance", "none", "--budget-percent", "none")).toMatchObject({ low_balance_credits: null, budget_percents: [] });
    expect(await cli("alerts", "show", "--account", accountId)).toMatchObject({ low_balance_credits: null, budget_percents: [], updated_at: expect.any(String) });
  });

  it("refuses percents outside 1..100, a negative or over-precise low balance, nothing to set, and an unknown account", async () => {
    const { accountId } = await seedAccount(db);
    await expect(cli("alerts", "set", "--account", accountId, "--budget-percent", "0,50")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(cli("alerts", "set", "--account", accountId, "--budget-percent", "101")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(cli("alerts", "set", "--account", accountId, "--budget-percent", "50.5")).rejects.toBeInstanceOf(UsageError);
    await expect(cli("alerts", "set", "--account", accountId, "--low-balance", "-1")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(cli("alerts", "set", "--account", accountId, "--low-balance", "0.0000001")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(cli("alerts", "set", "--account", accountId)).rejects.toBeInstanceOf(UsageError);
    await expect(cli("alerts", "show", "--account", "acc_nope")).rejects.toMatchObject({ code: "not_found" });
    await expect(cli("alerts", "set", "--account", "acc_nope", "--low-balance", "1")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("webhooks CLI", () => {
  it("webhooks create prints the signing secret once: list never shows it and the table holds it only encrypted", async () => {
    const { accountId } = await seedAccount(db);
    const created = await cli("webhooks", "create", "--account", accountId, "--url", "http://127.0.0.1:9/hook", "--events", "budget.threshold,balance.low", "--allow-private-network");
    expect(created).toMatchObject({
      id: expect.stringMatching(/^whe_/),
      url: "http://127.0.0.1:9/hook",
      events: ["balance.low", "budget.threshold"],
      allow_private_network: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await cli("webhooks", "list", "--account", accountId);
    expect(listed).toEqual({
      endpoints: [
        {
          id: created.id,
          url: created.url,
          events: created.events,
          allow_private_network: true,
          created_at: created.created_at,
          pending_count: 0,
          failed_count: 0,
          last_attempt_at: null,
          last_status_code: null,
        },
      ],
    });
    expect(JSON.stringify(listed)).not.toContain(created.secret as string);
    const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id as string));
    expect(row.secretCiphertext).not.toContain((created.secret as string).slice(6));

    expect(await cli("webhooks", "remove", "--id", created.id as string)).toEqual({ id: created.id, removed: true, cancelled_deliveries: 0 });
    expect(await cli("webhooks", "list", "--account", accountId)).toEqual({ endpoints: [] });
    await expect(cli("webhooks", "remove", "--id", created.id as string)).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses a private URL without --allow-private-network, an unknown event type and an unknown account", async () => {
    const { accountId } = await seedAccount(db);
    await expect(cli("webhooks", "create", "--account", accountId, "--url", "http://127.0.0.1:9/hook")).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("--allow-private-network"),
    });
    await expect(cli("webhooks", "create", "--account", accountId, "--url", "http://localhost:9/hook")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(cli("webhooks", "create", "--account", accountId, "--url", "https://93.184.215.14/", "--events", "balance.low,ledger.changed")).rejects.toMatchObject({
      code: "invalid_input",
      message: expect.stringContaining("ledger.changed"),
    });
    await expect(cli("webhooks", "create", "--account", "acc_nope", "--url", "https://93.184.215.14/")).rejects.toMatchObject({ code: "not_found" });
    expect(await cli("webhooks", "list", "--account", accountId)).toEqual({ endpoints: [] });
  });
});

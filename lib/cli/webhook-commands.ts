import { createWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint } from "../webhooks/endpoints";
import { requireAccount } from "../accounts/require-account";
import { OPERATOR } from "../accounts/activity";
import { optStr, str, type CommandSpec } from "./command-kit";

export const webhookCommands: Record<string, CommandSpec> = {
  "webhooks create": {
    usage:
      "webhooks create --account ID --url URL [--events balance.low,budget.threshold,credits.expiring,webhook.test] [--allow-private-network]   (prints the signing secret once)",
    options: { account: { type: "string" }, url: { type: "string" }, events: { type: "string" }, "allow-private-network": { type: "boolean" } },
    run: (db, v) => {
      const events = optStr(v, "events");
      return createWebhookEndpoint(db, {
        accountId: str(v, "account"),
        url: str(v, "url"),
        events: events === undefined ? [] : events.split(",").map((e) => e.trim()).filter(Boolean),
        allowPrivateNetwork: v["allow-private-network"] === true,
        actor: OPERATOR,
      });
    },
  },
  "webhooks list": {
    usage: "webhooks list --account ID",
    options: { account: { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      await requireAccount(db, accountId);
      return { endpoints: await listWebhookEndpoints(db, { accountId }) };
    },
  },
  "webhooks remove": {
    usage: "webhooks remove --id ID   (pending deliveries of the endpoint give up)",
    options: { id: { type: "string" } },
    run: (db, v) => removeWebhookEndpoint(db, { id: str(v, "id"), actor: OPERATOR }),
  },
};

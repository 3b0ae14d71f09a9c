import { readFile } from "node:fs/promises";
import { OPERATOR } from "../accounts/activity";
import { requireAccount } from "../accounts/require-account";
import { setAccountRegion } from "../accounts/region";
import { RegionSchema } from "../catalog/manifest";
import { connectableProvider, listConnections, redirectUri } from "../connections/connections";
import { appEnvNames, oauthApp, removeOauthApp, setOauthApp } from "../connections/oauth-client";
import { providerOauthApps } from "../db/schema";
import { rekeyVault } from "../vault/rekey";
import { vault } from "../vault/vault";
import { optStr, str, UsageError, type CommandSpec } from "./command-kit";

/** Connected accounts for operators (docs/connections.md): Tollgate's registration with providers' OAuth servers, the vault, regions. */
export const connectionCommands: Record<string, CommandSpec> = {
  "connections register": {
    usage: "connections register --provider ID --client-id ID [--client-secret-file FILE]   (Tollgate's client at the provider's OAuth server; the secret is read from the file, never from the command line, and sealed in the vault)",
    options: { provider: { type: "string" }, "client-id": { type: "string" }, "client-secret-file": { type: "string" } },
    run: async (db, v) => {
      const providerId = str(v, "provider");
      const provider = await connectableProvider(db, providerId);
      if (provider.connection.type !== "oauth2") throw new UsageError(`provider ${providerId} connects with pasted secrets, not OAuth: it needs no client`);
      const file = optStr(v, "client-secret-file");
      let secret: string | undefined;
      if (file !== undefined) {
        try {
          secret = (await readFile(file, "utf8")).trim();
        } catch (err) {
          throw new UsageError(`--client-secret-file ${file}: ${(err as Error).message}`);
        }
        if (!secret) throw new UsageError(`--client-secret-file ${file}: the file is empty`);
      }
      await setOauthApp(db, providerId, str(v, "client-id"), secret);
      return { provider_id: providerId, client_id: str(v, "client-id"), client_secret: secret ? "sealed in the vault" : "none (a public client)", redirect_uri_to_register: redirectUri() };
    },
  },
  "connections apps": {
    usage: "connections apps   (the providers Tollgate is registered with by this CLI; TOLLGATE_OAUTH_<PROVIDER>_CLIENT_ID ones are read from the environment)",
    options: {},
    run: async (db) => {
      const rows = await db.select({ providerId: providerOauthApps.providerId, clientId: providerOauthApps.clientId, updatedAt: providerOauthApps.updatedAt }).from(providerOauthApps);
      return { apps: rows.map((r) => ({ provider_id: r.providerId, client_id: r.clientId, updated_at: r.updatedAt.toISOString() })) };
    },
  },
  "connections app": {
    usage: "connections app --provider ID   (where the provider's client comes from: this CLI's registration or the environment)",
    options: { provider: { type: "string" } },
    run: async (db, v) => {
      const providerId = str(v, "provider");
      const app = await oauthApp(db, providerId);
      return { provider_id: providerId, registered: app !== null, source: app?.source ?? null, client_id: app?.clientId ?? null, env: appEnvNames(providerId) };
    },
  },
  "connections unregister": {
    usage: "connections unregister --provider ID",
    options: { provider: { type: "string" } },
    run: async (db, v) => ({ provider_id: str(v, "provider"), removed: await removeOauthApp(db, str(v, "provider")) }),
  },
  "connections list": {
    usage: "connections list --account ID   (every member's and the shared ones; never a token)",
    options: { account: { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      await requireAccount(db, accountId);
      return { connections: await listConnections(db, { accountId, userId: "", role: "owner" }) };
    },
  },
  "vault rekey": {
    usage: "vault rekey   (re-seals every token and secret under VAULT_KEY; list the old key in VAULT_PREVIOUS_KEYS while it runs)",
    options: {},
    run: async (db) => rekeyVault(db),
  },
  "vault key-id": {
    usage: "vault key-id   (the id of the key new secrets are sealed with, and of the previous keys held)",
    options: {},
    run: async () => ({ current: vault().current.id, held: [...vault().keys.keys()] }),
  },
  "accounts region": {
    usage: "accounts region --account ID --region CODE|none   (tools that declare regions answer region_restricted elsewhere)",
    options: { account: { type: "string" }, region: { type: "string" } },
    run: async (db, v) => {
      const accountId = str(v, "account");
      await requireAccount(db, accountId);
      const raw = str(v, "region");
      const region = raw === "none" ? null : RegionSchema.safeParse(raw).success ? raw : undefined;
      if (region === undefined) throw new UsageError("--region must be a region code (lower-case letters, digits and -: eu, us, cn) or none");
      return setAccountRegion(db, accountId, region, OPERATOR);
    },
  },
};

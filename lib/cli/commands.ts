import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Db } from "../db/types";
import { createAccount } from "../accounts/create-account";
import { setAccountDisabled } from "../accounts/disable-account";
import { createUser } from "../accounts/create-user";
import { notFound } from "../errors";
import { listMemberships } from "../accounts/members";
import { createApiKey, listApiKeys, revokeApiKey } from "../auth/api-keys";
import { DEFAULT_SCOPE, issueAccessToken } from "../auth/jwt";
import { createSigningKey } from "../auth/signing-keys";
import { grantCredits, grantTypes, type GrantType } from "../billing/grant-credits";
import { importCatalog } from "../catalog/import";
import { loadManifestFile } from "../catalog/load";
import { manifestFromMcpServer } from "../catalog/mcp-import";
import { createOAuthClient } from "../oauth/create-client";
import { ALL_SCOPES, formatScope, isScope } from "../oauth/scopes";
import { userRoles, type UserRole } from "../vocab/roles";
import { DEFAULT_GRACE_SECONDS, verifyLedger } from "../audit/verify";
import { writeAuditDigest } from "../audit/digests";
import { digestPublicKey } from "../audit/digest-key";
import { openDigestStore } from "../audit/digest-store";
import { OPERATOR } from "../accounts/activity";

import { list, oneOf, optStr, str, UsageError, type CommandContext, type CommandSpec, type Values } from "./command-kit";
import { importOpenApiCommand } from "./openapi-import-command";
import { spendCommands } from "./spend-commands";
import { teamCommands } from "./team-commands";
import { paymentCommands } from "./payment-commands";
import { connectionCommands } from "./connection-commands";

export { UsageError, type CommandContext } from "./command-kit";

const coreCommands: Record<string, CommandSpec> = {
  "accounts create": {
    usage: "accounts create --name NAME [--credits N]",
    options: { name: { type: "string" }, credits: { type: "string" } },
    run: (db, v) => createAccount(db, { name: str(v, "name"), credits: optStr(v, "credits"), actor: OPERATOR }),
  },
  "accounts disable": {
    usage: "accounts disable --id ID   (every key and token of the account refused at once, on every instance)",
    options: { id: { type: "string" } },
    run: (db, v) => setAccountDisabled(db, { accountId: str(v, "id"), disabled: true }),
  },
  "accounts enable": {
    usage: "accounts enable --id ID",
    options: { id: { type: "string" } },
    run: (db, v) => setAccountDisabled(db, { accountId: str(v, "id"), disabled: false }),
  },
  "credits grant": {
    usage: "credits grant --account ID --amount N [--type payment_recharge|welcome_bonus|invitation_reward] [--expires-at ISO-8601 (a date is midnight UTC)]",
    options: { account: { type: "string" }, amount: { type: "string" }, type: { type: "string" }, "expires-at": { type: "string" } },
    run: (db, v) => {
      const expiresAt = optStr(v, "expires-at");
      // A time needs its zone: "2027-01-31T18:00" alone would be read in this machine's zone.
      if (expiresAt !== undefined && (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(expiresAt) || Number.isNaN(Date.parse(expiresAt)))) {
        throw new UsageError("--expires-at must be an ISO-8601 date (2027-01-31) or date-time with its zone (2027-01-31T18:00:00Z)");
      }
      return grantCredits(db, {
        accountId: str(v, "account"),
        amount: str(v, "amount"),
        type: oneOf<GrantType>(optStr(v, "type") ?? "payment_recharge", grantTypes, "type"),
        expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt),
        actor: OPERATOR,
      });
    },
  },
  "keys create": {
    usage: "keys create --account ID [--name NAME]",
    options: { account: { type: "string" }, name: { type: "string" } },
    run: (db, v) => createApiKey(db, { accountId: str(v, "account"), name: optStr(v, "name"), actor: OPERATOR }),
  },
  "keys revoke": {
    usage: "keys revoke --id ID",
    options: { id: { type: "string" } },
    run: (db, v) => {
      const id = str(v, "id");
      if (!/^[0-9a-f-]{36}$/i.test(id)) throw new UsageError("--id must be an API key id (uuid)");
      return revokeApiKey(db, { id, actor: OPERATOR });
    },
  },
  "keys list": {
    usage: "keys list --account ID",
    options: { account: { type: "string" } },
    run: async (db, v) => ({ keys: await listApiKeys(db, { accountId: str(v, "account") }) }),
  },
  "keys rotate-signing": {
    usage: "keys rotate-signing",
    options: {},
    // The new key is published at once and signs once every JWKS copy lists it (lib/auth/signing-keys.ts);
    // older keys keep verifying, so tokens already issued stay valid.
    run: async (db) => ({ kid: await createSigningKey(db) }),
  },
  "users create": {
    usage: "users create --account ID --email E --password P [--role owner|member|support]",
    options: { account: { type: "string" }, email: { type: "string" }, password: { type: "string" }, role: { type: "string" } },
    run: (db, v) =>
      createUser(db, {
        accountId: str(v, "account"),
        email: str(v, "email"),
        password: str(v, "password"),
        role: oneOf<UserRole>(optStr(v, "role") ?? "owner", userRoles, "role"),
      }),
  },
  "tokens issue": {
    usage: `tokens issue --user ID [--account ID] [--ttl SECONDS] [--scope "SCOPE ..."] (scopes: ${ALL_SCOPES.join(" ")}; default all; account: the user's last used)`,
    options: { user: { type: "string" }, account: { type: "string" }, ttl: { type: "string" }, scope: { type: "string" } },
    run: async (db, v) => {
      const ttl = Number(optStr(v, "ttl") ?? "3600");
      if (!Number.isInteger(ttl) || ttl < 1 || ttl > 30 * 86400) throw new UsageError("--ttl must be an integer between 1 and 2592000");
      const scope = optStr(v, "scope");
      const unknown = scope === undefined ? [] : scope.split(" ").filter((s) => s && !isScope(s));
      if (scope !== undefined && (unknown.length > 0 || !scope.trim())) throw new UsageError(`--scope takes space-separated scopes among ${ALL_SCOPES.join(" ")}${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}`);
      // The token is for one of the user's accounts, with the role the membership gives there.
      const userId = str(v, "user");
      const account = optStr(v, "account");
      const memberships = await listMemberships(db, userId);
      const member = account === undefined ? memberships[0] : memberships.find((m) => m.accountId === account);
      if (!member) throw notFound(account === undefined ? `User ${userId} not found, or a member of no account` : `User ${userId} is not a member of account ${account}`);
      const token = await issueAccessToken(db, {
        userId: member.userId,
        accountId: member.accountId,
        role: member.role,
        scope: scope === undefined ? DEFAULT_SCOPE : formatScope([...new Set(scope.split(" ").filter(Boolean))]),
        ttlSeconds: ttl,
      });
      return { access_token: token.accessToken, token_type: "Bearer", expires_in: token.expiresIn };
    },
  },
  "clients create": {
    usage:
      "clients create --name N --type public|confidential [--redirect-uri U]... [--grant G]... [--resource R]... [--agent-runtime] [--resource-server]",
    options: {
      name: { type: "string" },
      type: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      grant: { type: "string", multiple: true },
      resource: { type: "string", multiple: true },
      "agent-runtime": { type: "boolean" },
      "resource-server": { type: "boolean" },
    },
    run: (db, v) =>
      createOAuthClient(db, {
        name: str(v, "name"),
        type: oneOf(str(v, "type"), ["public", "confidential"] as const, "type"),
        redirectUris: list(v, "redirect-uri"),
        grants: list(v, "grant"),
        resources: list(v, "resource"),
        agentRuntime: v["agent-runtime"] === true,
        resourceServer: v["resource-server"] === true,
      }),
  },
  "audit verify": {
    usage:
      `audit verify [--account ID] [--grace-seconds N (default ${DEFAULT_GRACE_SECONDS})] [--digests DIR|s3://BUCKET/PREFIX [--public-key FILE]...]` +
      "   (exit 1 when an invariant is broken or a row differs from the signed digests)",
    options: { account: { type: "string" }, "grace-seconds": { type: "string" }, digests: { type: "string" }, "public-key": { type: "string", multiple: true } },
    run: (db, v) => {
      const grace = optStr(v, "grace-seconds");
      if (grace !== undefined && !/^\d+$/.test(grace)) throw new UsageError("--grace-seconds must be a non-negative integer");
      const digests = optStr(v, "digests");
      const keyFiles = list(v, "public-key");
      if (keyFiles.length > 0 && digests === undefined) throw new UsageError("--public-key applies with --digests");
      return verifyLedger(db, {
        accountId: optStr(v, "account"),
        graceSeconds: grace === undefined ? undefined : Number(grace),
        digests: digests === undefined ? undefined : { store: openDigestStore(digests), publicKeys: keyFiles.length > 0 ? keyFiles.map(readPublicKey) : undefined },
      });
    },
  },
  "audit digest": {
    usage: "audit digest   (signs every account's ledger and activity log heads now; AUDIT_DIGEST_* say with which key and where to)",
    options: {},
    run: (db) => writeAuditDigest(db),
  },
  "providers import": {
    usage:
      "providers import (--file F [--source S] | --mcp URL [--provider-id ID] [--name NAME] [--price CREDITS] [--allow-private-network] [--live-schema]" +
      " | --openapi FILE|URL [--id ID] [--source NAME] [--base-url URL] [--auth-env VAR] [--auth-env SCHEME=VAR ...] [--connection SCHEME ...] [--price CREDITS | --price-per-operation FILE] [--allow-private-network])",
    options: {
      file: { type: "string" },
      source: { type: "string" },
      mcp: { type: "string" },
      openapi: { type: "string" },
      "provider-id": { type: "string" },
      id: { type: "string" },
      name: { type: "string" },
      price: { type: "string" },
      "price-per-operation": { type: "string" },
      "base-url": { type: "string" },
      "auth-env": { type: "string", multiple: true },
      connection: { type: "string", multiple: true },
      "allow-private-network": { type: "boolean" },
      "live-schema": { type: "boolean" },
    },
    run: async (db, v, ctx) => {
      const modes = (["file", "mcp", "openapi"] as const).filter((m) => optStr(v, m) !== undefined);
      if (modes.length > 1) throw new UsageError(`give one of --file, --mcp, --openapi (not ${modes.map((m) => `--${m}`).join(" and ")})`);
      if (v["live-schema"] === true && modes[0] !== "mcp") throw new UsageError("--live-schema applies to --mcp imports only");
      for (const option of ["id", "base-url", "auth-env", "connection", "price-per-operation"]) {
        if (list(v, option).length > 0 && modes[0] !== "openapi") throw new UsageError(`--${option} applies to --openapi imports only`);
      }
      if (modes[0] === "openapi") return importOpenApiCommand(db, v, ctx);
      const manifest = modes[0] === "mcp" ? await mcpManifest(v) : await loadManifestFile(path.resolve(str(v, "file")), { source: optStr(v, "source") });
      return importCatalog(db, manifest, {
        onProgress: (done, total) => ctx.progress?.(`imported ${done}/${total} tools`),
      });
    },
  },
};

/** Every command: the core ones above, spend controls (lib/cli/spend-commands.ts), members (lib/cli/team-commands.ts) and payments (lib/cli/payment-commands.ts). */
const commands: Record<string, CommandSpec> = { ...coreCommands, ...spendCommands, ...teamCommands, ...paymentCommands, ...connectionCommands };

function readPublicKey(file: string) {
  let pem: string;
  try {
    pem = fs.readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`--public-key ${file}: no such file`);
  }
  return digestPublicKey(pem, file);
}

/**
 * `--mcp URL`: the server's tools become an `mcp` provider; free unless `--price` sets credits per
 * call. With `--live-schema` Inspect reads their params from the server's `tools/list` (cached 30 s).
 */
async function mcpManifest(v: Values) {
  const url = str(v, "mcp");
  if (!/^https?:\/\//.test(url)) throw new UsageError("--mcp must be an http(s) URL of the server's MCP endpoint");
  const price = optStr(v, "price");
  if (price !== undefined && !/^\d+(\.\d{1,6})?$/.test(price)) throw new UsageError("--price must be a non-negative number of credits with at most 6 decimals");
  return manifestFromMcpServer(url, {
    providerId: optStr(v, "provider-id"),
    name: optStr(v, "name"),
    priceCredits: price === undefined ? undefined : Number(price),
    allowPrivateNetwork: v["allow-private-network"] === true,
    liveSchema: v["live-schema"] === true,
  });
}

export function usageText(): string {
  return ["Usage: npm run --silent cli -- <command> [options] [--json]", "", ...Object.values(commands).map((c) => `  ${c.usage}`)].join("\n");
}

/** Splits argv into the command name and its options, validating both. */
export function parseCommand(argv: string[]): { name: string; spec: CommandSpec; values: Values } {
  const name = argv.slice(0, 2).join(" ");
  const spec = commands[name];
  if (!spec) throw new UsageError(`Unknown command "${argv.slice(0, 2).join(" ")}"`);
  // `--amount -5` is a negative value, not an option named "-5": the domain check explains it.
  const joined: string[] = [];
  for (const arg of argv.slice(2)) {
    const previous = joined.at(-1);
    if (previous && /^-\d/.test(arg) && /^--[\w-]+$/.test(previous)) joined[joined.length - 1] = `${previous}=${arg}`;
    else joined.push(arg);
  }
  try {
    const { values } = parseArgs({ args: joined, options: { ...spec.options, json: { type: "boolean" } }, strict: true });
    return { name, spec, values: values as Values };
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nUsage: ${spec.usage}`);
  }
}

/** Runs one CLI command against a database (directly, or inside the server via the admin channel). */
export async function runCommand(db: Db, argv: string[], ctx: CommandContext = {}): Promise<unknown> {
  const { spec, values } = parseCommand(argv);
  return spec.run(db, values, ctx);
}

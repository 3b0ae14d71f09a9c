import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { testDbKind } from "../testing/database";
import { cliDatabase, runCli } from "../testing/cli-process";
import { verifyAccessToken } from "../auth/jwt";
import { getBalance } from "../billing/get-balance";
import { apiKeys, oauthClients, tools, users } from "../db/schema";
import { createAccount } from "../accounts/create-account";
import { createUser } from "../accounts/create-user";
import type { Database } from "../db/types";
import { DEMO_CATALOG } from "../seed/seed-demo";


interface CliResult {
  code: number;
  json: Record<string, unknown>;
  stderr: string;
}

/** Runs the real CLI in a child process, as an operator would. */
async function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  const r = await runCli(env, [...args, "--json"]);
  return { code: r.code, json: JSON.parse(r.stdout.trim().split("\n").pop() || "{}"), stderr: r.stderr };
}

/** The CLI against this run's database: PostgreSQL by URL, or an embedded data dir held by a "server". */
let env: Record<string, string>;
let database: Database;
beforeAll(async () => {
  ({ database, env } = await cliDatabase());
}, 120_000);

// Each test starts the real CLI several times (2.5 s each on an idle 2-core machine, 5-10 s on a
// busy one), and each start may take up to cli()'s 60 s: a test's time is its starts' time.
describe(`admin CLI (${testDbKind()})`, { timeout: 180_000 }, () => {
  let accountId: string;
  let userId: string;

  it("accounts create grants the initial credits as a welcome bonus", async () => {
    const r = await cli(env, "accounts", "create", "--name", "Acme", "--credits", "10");
    expect(r.code).toBe(0);
    accountId = r.json.account_id as string;
    expect(accountId).toMatch(/^acc_/);
    expect((await getBalance(database.db, accountId)).bonus_credits).toBe(10);
  });

  it("credits grant appends a ledger row and reports the balance", async () => {
    const r = await cli(env, "credits", "grant", "--account", accountId, "--amount", "5.25", "--type", "payment_recharge");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ balance_after: 15.25 });
    expect(r.json.ledger_entry_id).toMatch(/^led_/);
  });

  it("audit verify exits 0 on a sound account, and 1 listing the violation when its balance drifts from the ledger", async () => {
    const clean = await cli(env, "audit", "verify", "--account", accountId);
    expect(clean.code).toBe(0);
    expect(clean.json).toMatchObject({ ok: true, accounts_checked: 1, violations: [] });
    await database.db.execute(sql`UPDATE credit_balances SET reward_credits = reward_credits + 1 WHERE account_id = ${accountId}`);
    try {
      const broken = await cli(env, "audit", "verify", "--account", accountId);
      expect(broken.code).toBe(1);
      expect(broken.json).toMatchObject({ ok: false, violations: [{ account_id: accountId, check: "balance_equals_ledger" }] });
    } finally {
      await database.db.execute(sql`UPDATE credit_balances SET reward_credits = reward_credits - 1 WHERE account_id = ${accountId}`);
    }
    expect((await cli(env, "audit", "verify", "--grace-seconds", "x")).code).toBe(2);
  });

  it("keys create / list / revoke", async () => {
    const created = await cli(env, "keys", "create", "--account", accountId, "--name", "ci");
    expect(created.code).toBe(0);
    expect(created.json.api_key).toMatch(/^tg_/);
    const listed = await cli(env, "keys", "list", "--account", accountId);
    expect(listed.json.keys).toEqual([expect.objectContaining({ api_key_id: created.json.api_key_id, name: "ci", revoked_at: null })]);
    const revoked = await cli(env, "keys", "revoke", "--id", created.json.api_key_id as string);
    expect(revoked.code).toBe(0);
    const row = await database.db.select().from(apiKeys).where(eq(apiKeys.id, created.json.api_key_id as string));
    expect(row[0].revokedAt).not.toBeNull();
    expect(row[0].keyHash).not.toContain(created.json.api_key as string);
  });

  it("users create and tokens issue give a JWT the API accepts", async () => {
    const u = await cli(env, "users", "create", "--account", accountId, "--email", "ops@example.test", "--password", "long enough pw", "--role", "member");
    expect(u.code).toBe(0);
    userId = u.json.user_id as string;
    const t = await cli({ ...env, PUBLIC_URL: process.env.PUBLIC_URL! }, "tokens", "issue", "--user", userId, "--ttl", "120");
    expect(t.code).toBe(0);
    expect(t.json).toMatchObject({ token_type: "Bearer", expires_in: 120 });
    const claims = await verifyAccessToken(database.db, t.json.access_token as string);
    expect(claims).toMatchObject({ sub: userId, acct: accountId, role: "member" });
    // A token is for an account the user belongs to, with the membership's role; another account is refused.
    const named = await cli({ ...env, PUBLIC_URL: process.env.PUBLIC_URL! }, "tokens", "issue", "--user", userId, "--account", accountId);
    expect(named.code).toBe(0);
    const elsewhere = await cli({ ...env, PUBLIC_URL: process.env.PUBLIC_URL! }, "tokens", "issue", "--user", userId, "--account", "acc_not_theirs");
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr).toMatch(/not a member of account acc_not_theirs/);
  });

  it("clients create stores a confidential client's secret only as a hash", async () => {
    const r = await cli(env, "clients", "create", "--name", "Runtime", "--type", "confidential", "--grant", "token_exchange", "--resource", "https://rs.example", "--agent-runtime");
    expect(r.code).toBe(0);
    const row = await database.db.select().from(oauthClients).where(eq(oauthClients.id, r.json.client_id as string));
    expect(row[0]).toMatchObject({ isAgentRuntime: true, grantTypes: ["urn:ietf:params:oauth:grant-type:token-exchange"] });
    expect(row[0].secretHash).toBe(createHash("sha256").update(r.json.client_secret as string).digest("hex"));
  });

  it("providers import is idempotent: a second import writes nothing and says so", async () => {
    const first = await cli(env, "providers", "import", "--file", path.relative(process.cwd(), DEMO_CATALOG));
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ providers: 1, added: first.json.tools, changed: 0, unchanged: 0, retired: 0 });
    const second = await cli(env, "providers", "import", "--file", DEMO_CATALOG);
    expect(second.json).toEqual({ ...first.json, added: 0, unchanged: first.json.tools });
    const count = await database.db.select({ id: tools.id }).from(tools);
    expect(count.length).toBe(first.json.tools);
  });

  it("providers import updates a changed tool, and reports progress on stderr when not --json", async () => {
    const manifest = JSON.parse(fs.readFileSync(DEMO_CATALOG, "utf8")) as { providers: { tools: { id: string; description: string }[] }[] };
    const target = manifest.providers[0].tools[0];
    target.description = "A description changed by the re-import test";
    const file = path.join(os.tmpdir(), `tollgate-cli-manifest-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(manifest));
    try {
      const { stdout, stderr } = await runCli(env, ["providers", "import", "--file", file]);
      expect(JSON.parse(stdout)).toMatchObject({ providers: 1, added: 0, changed: 1, retired: 0 });
      expect(stderr).toMatch(/imported \d+\/\d+ tools/);
    } finally {
      fs.rmSync(file, { force: true });
    }
    const row = await database.db.select({ description: tools.description }).from(tools).where(eq(tools.id, target.id));
    expect(row[0].description).toBe("A description changed by the re-import test");
  });

  it("providers import --openapi turns a REST API's operations into priced tools and reports the counts; a defect in one operation refuses it alone, an unresolvable $ref refuses the document (exit 1) naming the pointer", async () => {
    const tmdb = path.relative(process.cwd(), path.resolve("../shared/catalog/openapi/restbench-tmdb.json"));
    const r = await cli(env, "providers", "import", "--openapi", tmdb, "--id", "restbench-tmdb", "--source", "restbench-tmdb", "--auth-env", "TMDB_API_KEY", "--price", "0.1");
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ provider: "restbench-tmdb", base_url: "https://api.themoviedb.org/3", operations: 54, tools: 54, added: 54, retired: 0, skipped: [] });
    const [credits] = await database.db.select().from(tools).where(eq(tools.id, "restbench-tmdb:GET_movie-movie_id-credits"));
    expect(credits).toMatchObject({ source: "restbench-tmdb", billingRule: { unit: "call", amount_credits: 0.1 }, execution: { method: "GET", path: "/movie/{movie_id}/credits" } });

    const file = path.join(os.tmpdir(), `tollgate-cli-openapi-${process.pid}.yaml`);
    try {
      // A defect confined to one operation refuses that operation alone, named by its pointer.
      fs.writeFileSync(file, "openapi: 3.0.3\ninfo: {title: Partly, version: '1'}\nservers: [{url: 'https://api.example'}]\npaths:\n  /a/{id}:\n    get: {responses: {}}\n  /b:\n    get: {operationId: listB, responses: {}}\n");
      const partly = await cli(env, "providers", "import", "--openapi", file);
      expect(partly.code).toBe(0);
      expect(partly.json).toMatchObject({ provider: "partly", operations: 2, tools: 1, skipped: [{ operation: "GET /a/{id}", pointer: "/paths/~1a~1{id}/get/parameters", reason: expect.stringContaining("path parameter {id}") }] });
      // A $ref that resolves to nothing where the import reads refuses the whole document.
      fs.writeFileSync(file, "openapi: 3.0.3\ninfo: {title: Broken, version: '1'}\nservers: [{url: 'https://api.example'}]\npaths:\n  /a:\n    get: {parameters: [{$ref: '#/components/parameters/Missing'}], responses: {}}\n");
      const broken = await cli(env, "providers", "import", "--openapi", file);
      expect(broken.code).toBe(1);
      expect(broken.json.error).toContain(`Cannot import OpenAPI document ${file}`);
      expect(broken.json.error).toContain("/paths/~1a/get/parameters/0");
    } finally {
      fs.rmSync(file, { force: true });
    }
    expect((await cli(env, "providers", "import", "--file", DEMO_CATALOG, "--auth-env", "X")).code).toBe(2);
  });

  it("grants of each type feed their own kind; keys get a default name", async () => {
    const reward = await cli(env, "credits", "grant", "--account", accountId, "--amount", "2", "--type", "invitation_reward");
    const bonus = await cli(env, "credits", "grant", "--account", accountId, "--amount", "1", "--type", "welcome_bonus");
    expect([reward.code, bonus.code]).toEqual([0, 0]);
    expect(await getBalance(database.db, accountId)).toMatchObject({ reward_credits: 2, bonus_credits: 11, paid_credits: 5.25 });
    const key = await cli(env, "keys", "create", "--account", accountId);
    expect(key.code).toBe(0);
    expect(key.json).toMatchObject({ name: "default" });
  });

  it("clients create registers a public client with its redirect URIs, and a resource server", async () => {
    const pub = await cli(env, "clients", "create", "--name", "Browser app", "--type", "public", "--redirect-uri", "https://app.example/cb", "--redirect-uri", "http://127.0.0.1:8080/cb");
    expect(pub.code).toBe(0);
    expect(pub.json).not.toHaveProperty("client_secret");
    const pubRow = await database.db.select().from(oauthClients).where(eq(oauthClients.id, pub.json.client_id as string));
    expect(pubRow[0]).toMatchObject({ secretHash: null, redirectUris: ["https://app.example/cb", "http://127.0.0.1:8080/cb"] });
    const rs = await cli(env, "clients", "create", "--name", "Billing API", "--type", "confidential", "--resource", "https://billing.example", "--resource-server");
    expect(rs.code).toBe(0);
    const rsRow = await database.db.select().from(oauthClients).where(eq(oauthClients.id, rs.json.client_id as string));
    expect(rsRow[0]).toMatchObject({ isResourceServer: true, resources: ["https://billing.example"] });
  });

  it("a customer created into the operator's staff account exits 1 saying why, and is not created", async () => {
    const { account_id: staffAccount } = await createAccount(database.db, { name: "Support" });
    await createUser(database.db, { accountId: staffAccount, email: `lead-${staffAccount}@example.test`, password: "long enough pw", role: "support" });
    const refused = await cli(env, "users", "create", "--account", staffAccount, "--email", `customer-${staffAccount}@example.test`, "--password", "long enough pw", "--role", "owner");
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatch(/is the operator's staff account \(it has support users\): customers are never members of it/);
    expect(await database.db.select({ id: users.id }).from(users).where(eq(users.email, `customer-${staffAccount}@example.test`))).toEqual([]);
  });

  it("bad input exits non-zero with a clear message", async () => {
    const missing = await cli(env, "accounts", "create");
    expect(missing.code).toBe(2);
    expect(missing.json.error).toMatch(/--name is required/);
    const negative = await cli(env, "credits", "grant", "--account", accountId, "--amount", "-5");
    expect(negative.code).toBe(1);
    expect(negative.json.error).toMatch(/positive/);
    const unknown = await cli(env, "credits", "grant", "--account", "acc_nope", "--amount", "5");
    expect(unknown.code).toBe(1);
    expect(unknown.json.error).toMatch(/not found/);
    const badFile = await cli(env, "providers", "import", "--file", "/nonexistent.json");
    expect(badFile.code).toBe(1);
    const unknownCommand = await cli(env, "frobnicate", "now");
    expect(unknownCommand.code).toBe(2);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestDatabase } from "../../testing/database";
import { startTestServer, type TestServer } from "../../testing/server";
import { callApi, seedAccount } from "../../testing/fixtures";
import { rows } from "../../db/row-sql";
import type { Database } from "../../db/types";

let database: Database;
let server: TestServer;
let acct: Awaited<ReturnType<typeof seedAccount>>;
let other: Awaited<ReturnType<typeof seedAccount>>;
let support: Awaited<ReturnType<typeof seedAccount>>;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer(database);
  acct = await seedAccount(database.db, { name: "Acme Robotics" });
  other = await seedAccount(database.db, { name: "Other Co" });
  support = await seedAccount(database.db, { role: "support", name: "Support desk" });
});

const get = (path: string, token: string) => callApi(server.url, "GET", path, token);

describe("GET /auth/account", () => {
  it("a member reads their own account: name, owners, member count", async () => {
    const { status, body } = await get("/auth/account", acct.accessToken);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ account_id: acct.accountId, name: "Acme Robotics", owners: [acct.email], member_count: 1 });
    expect(Number.isNaN(Date.parse(body.data.created_at))).toBe(false);
  });

  it("support reads the account it investigates, and the read is logged; anyone else naming an account is refused", async () => {
    const { status, body } = await get(`/auth/account?account_id=${acct.accountId}`, support.accessToken);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ account_id: acct.accountId, name: "Acme Robotics", owners: [acct.email] });
    const log = rows<{ target_account_id: string; resource: string }>(
      await database.db.execute(sql`SELECT target_account_id, resource FROM support_access_log WHERE user_id = ${support.userId}`),
    );
    expect(log).toEqual([{ target_account_id: acct.accountId, resource: "GET /auth/account" }]);

    expect((await get(`/auth/account?account_id=${acct.accountId}`, other.accessToken)).status).toBe(403);
    expect((await get("/auth/account?account_id=acc_nope", support.accessToken)).status).toBe(404);
  });
});

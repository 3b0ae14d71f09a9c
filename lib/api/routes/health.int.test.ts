import { describe, expect, it } from "vitest";
import { createTestDatabase } from "../../testing/database";
import { startTestServer } from "../../testing/server";
import { openDatabase } from "../../db/open";

describe("GET /api/v1/health", () => {
  it("answers 200 while the database answers", async () => {
    const database = await createTestDatabase();
    const server = await startTestServer(database);
    const res = await fetch(`${server.url}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", database: "ok" });
  });

  it("answers 503 in the contract's shape, with Retry-After, when the database does not", async () => {
    // A database handle of its own, closed under the running server.
    const template = await createTestDatabase();
    const database = template.url ? await openDatabase({ kind: "postgres", url: template.url, poolSize: 2 }) : await openDatabase({ kind: "pglite" });
    const server = await startTestServer(database);
    expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(200);
    await database.close();
    const res = await fetch(`${server.url}/api/v1/health`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toEqual({ status: "failure", status_code: 503, message: "The database does not answer" });
  });
});

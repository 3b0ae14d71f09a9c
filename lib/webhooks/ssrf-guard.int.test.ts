import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDatabase } from "../testing/database";
import { startTestServer, type TestServer } from "../testing/server";
import { callApi, seedAccount } from "../testing/fixtures";
import { closedPort } from "../testing/fake-upstream";
import { runCommand } from "../cli/commands";
import { webhookEndpoints } from "../db/schema";
import { deliverDue } from "./deliver";


/** This host's first non-loopback IPv4 address: what a server listening on every interface answers on. */
const hostAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

const database = await createTestDatabase();
const { db } = database;
let server: TestServer;
let receiver: http.Server;
let port: number;
const seen: string[] = [];

const api = (method: string, path: string, token: string, body?: unknown) => callApi(server.url, method, path, token, body);

beforeAll(async () => {
  server = await startTestServer(database);
  // A receiver listening on every interface, as a service on the gateway's own host might.
  receiver = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    req.resume();
    if (req.url === "/redirect") return res.writeHead(302, { location: `http://127.0.0.1:${port}/landed` }).end();
    res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => receiver.listen(0, "0.0.0.0", resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => (receiver.closeAllConnections(), receiver.close(() => resolve()))));

/** An endpoint the operator created (CLI, --allow-private-network), and its delivery log after a test event. */
async function operatorEndpoint(accessToken: string, accountId: string, url: string, keepAllowed: boolean) {
  const created = (await runCommand(db, ["webhooks", "create", "--account", accountId, "--url", url, "--allow-private-network"])) as { id: string };
  if (!keepAllowed) await db.update(webhookEndpoints).set({ allowPrivateNetwork: false }).where(eq(webhookEndpoints.id, created.id));
  expect((await api("POST", `/auth/webhooks/${created.id}/test`, accessToken)).status).toBe(200);
  await deliverDue(db);
  return (await api("GET", `/auth/webhooks/${created.id}/deliveries`, accessToken)).body.data.items[0];
}

describe("webhook endpoints reach only public addresses", () => {
  it.each([
    "http://192.0.2.2:8080/hook",
    "http://203.0.113.9/hook",
    "https://198.51.100.1/hook",
    "http://[2001:db8::1]/hook",
    "http://[fd00::2]/hook",
    "http://[::ffff:192.0.2.2]/hook",
    "http://[64:ff9b::c000:202]/hook",
    "http://[2002:c000:202::1]/hook",
  ])("the API refuses %s with a 400 in the contract's shape", async (url) => {
    const owner = await seedAccount(db);
    const res = await api("POST", "/auth/webhooks", owner.accessToken, { url });
    expect(res.status).toBe(400);
    // The contract's APIResponse for invalid input (status_code -7).
    expect(res.body).toMatchObject({ status: "failure", status_code: -7, message: expect.stringMatching(/non-public address/) });
    expect((await api("GET", "/auth/webhooks", owner.accessToken)).body.data.items).toEqual([]);
  });

  it.runIf(hostAddress)("this host's own address is refused by the API; an endpoint there not allowed on private networks gets no request, open port or closed", async () => {
    const owner = await seedAccount(db);
    const res = await api("POST", "/auth/webhooks", owner.accessToken, { url: `http://${hostAddress}:${port}/hook` });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/non-public address/);

    // With the operator's flag it is delivered: the address is reachable.
    const allowed = await operatorEndpoint(owner.accessToken, owner.accountId, `http://${hostAddress}:${port}/allowed`, true);
    expect(allowed).toMatchObject({ status: "delivered", last_status_code: 200 });
    expect(seen).toContain("/allowed");

    // Without it, an open and a closed port read the same in the delivery log: it scans nothing.
    const before = seen.length;
    const open = await operatorEndpoint(owner.accessToken, owner.accountId, `http://${hostAddress}:${port}/refused`, false);
    const closed = await operatorEndpoint(owner.accessToken, owner.accountId, `http://${hostAddress}:${await closedPort()}/refused`, false);
    expect(seen.length).toBe(before);
    for (const log of [open, closed]) {
      expect(log).toMatchObject({ status: "pending", last_status_code: null });
      expect(log.attempt_log[0].error).toMatch(new RegExp(`^refused: ${hostAddress!.replace(/\./g, "\\.")} is a non-public address \\(`));
    }
    expect(open.attempt_log[0].error).toBe(closed.attempt_log[0].error);
  });

  it("a redirect is not followed: the delivery fails with its 3xx and the target is never asked", async () => {
    const owner = await seedAccount(db);
    const log = await operatorEndpoint(owner.accessToken, owner.accountId, `http://127.0.0.1:${port}/redirect`, true);
    expect(log).toMatchObject({ status: "pending", last_status_code: 302 });
    expect(seen).toContain("/redirect");
    expect(seen).not.toContain("/landed");
  });
});

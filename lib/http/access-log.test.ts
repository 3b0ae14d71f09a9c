import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// A real serving process (bootstrap + the API on @hono/node-server, as `npm start` has it) on a fresh
// embedded database, at the default log level, with its stdout captured.
const SERVER = `
import { serve } from "@hono/node-server";
import { bootstrap } from "./lib/server/bootstrap";
import { createApiApp } from "./lib/api/app";
const { database } = await bootstrap();
serve({ fetch: createApiApp({ database }).fetch, hostname: "127.0.0.1", port: 0 }, (info) => process.stderr.write("PORT " + info.port + "\\n"));
process.on("SIGTERM", () => process.exit(0));
`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-access-log-"));
let child: ChildProcess;
let url = "";
let stdout = "";

beforeAll(async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", LOG_LEVEL: "info", SEED_DEMO: "true", DATA_DIR: dataDir, PUBLIC_URL: "http://127.0.0.1" };
  delete env.DATABASE_URL;
  child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", SERVER], { cwd: process.cwd(), env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  url = await new Promise<string>((resolve, reject) => {
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const port = /PORT (\d+)/.exec(stderr);
      if (port) resolve(`http://127.0.0.1:${port[1]}`);
    });
    child.once("exit", (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
  });
}, 120_000);

afterAll(() => {
  if (child.exitCode === null) child.kill("SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Stops the server (its exit handler flushes buffered log lines) and returns the JSON log lines. */
async function stopAndReadLog(): Promise<Record<string, unknown>[]> {
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("structured logs", () => {
  it("carry each request's X-Request-Id, status and account, and never a key, token, secret or password", async () => {
    const demo = JSON.parse(fs.readFileSync(path.join(dataDir, "demo-credentials.json"), "utf8")) as { api_key: string; account_id: string; password: string };
    const bogusKey = "tg_notARealKeyButShapedLikeOne_1234567890";
    const clientSecret = "a-client-secret-that-must-never-be-logged";

    const ok = await fetch(`${url}/api/v1/auth/credits`, { headers: { authorization: `Bearer ${demo.api_key}`, "x-request-id": "access-log-test-0001" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toBe("access-log-test-0001");
    const denied = await fetch(`${url}/api/v1/auth/credits`, { headers: { authorization: `Bearer ${bogusKey}`, "x-request-id": "access-log-test-0002" } });
    expect(denied.status).toBe(401);
    const oauth = await fetch(`${url}/api/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": "access-log-test-0003" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "rt-that-must-never-be-logged", client_id: "nobody", client_secret: clientSecret }),
    });
    expect(oauth.status).toBeGreaterThanOrEqual(400);
    const generated = await fetch(`${url}/api/v1/meta`);
    const generatedId = generated.headers.get("x-request-id");
    expect(generatedId).toMatch(/^req_[0-9a-f]{12}_[0-9a-z]+$/);

    const lines = await stopAndReadLog();
    const byId = (id: string) => lines.find((l) => l.requestId === id);
    expect(byId("access-log-test-0001")).toMatchObject({ level: 30, method: "GET", path: "/api/v1/auth/credits", status: 200, account: demo.account_id });
    expect(byId("access-log-test-0002")).toMatchObject({ path: "/api/v1/auth/credits", status: 401 });
    expect(byId("access-log-test-0002")).not.toHaveProperty("account");
    expect(byId("access-log-test-0003")).toMatchObject({ method: "POST", path: "/api/v1/oauth/token", status: oauth.status });
    expect(byId(generatedId!)).toMatchObject({ path: "/api/v1/meta", status: 200 });
    for (const secret of [demo.api_key, bogusKey, clientSecret, "rt-that-must-never-be-logged", demo.password]) expect(stdout).not.toContain(secret);
  });
});

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../cli/commands";
import type { Database } from "../../db/types";
import { startByteReceiver, type ByteReceiver, type Received } from "../../testing/byte-receiver";
import { createTestDatabase } from "../../testing/database";
import { callApi, seedAccount } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";

// An API whose parameters and body fields are named like the members every JavaScript object
// inherits, imported through the real OpenAPI import and called through the real API: what the
// upstream receives is what the Call gave, never an inherited member, and a `__proto__` in a
// client's JSON pollutes nothing. Beside it, the path that left its operation (issue 58).

const NAMES = ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"];
/** The tool's name for each: `__proto__` is `<location>___proto__` (JSON readers drop the key itself). */
const toolName = (name: string, where: string) => (name === "__proto__" ? `${where}___proto__` : name);
const GIVEN = ["c", "t", "h", "p", "v"];
const given = (where: string) => Object.fromEntries(NAMES.map((name, i) => [toolName(name, where), GIVEN[i]]));

function membersDocument() {
  const text = { type: "string" };
  const parameters = (where: string) => NAMES.map((name) => ({ name, in: where, required: where === "path", schema: text }));
  const fields = { type: "object", properties: Object.fromEntries(NAMES.map((name) => [name, text])) };
  const ok = { "200": { description: "OK", content: { "application/json": { schema: { type: "object" } } } } };
  return {
    openapi: "3.0.3",
    info: { title: "Members", version: "1.0" },
    servers: [{ url: "https://members.example/base" }],
    security: [{ key: [] }],
    components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Api-Key" } } },
    paths: {
      "/repos/{owner}/{repo}/issues": {
        get: {
          operationId: "listIssues",
          parameters: ["owner", "repo"].map((name) => ({ name, in: "path", required: true, schema: text })),
          responses: ok,
        },
      },
      [`/path/${NAMES.map((name) => `{${name}}`).join("/")}`]: { get: { operationId: "byPath", parameters: parameters("path"), responses: ok } },
      "/query": { get: { operationId: "byQuery", parameters: parameters("query"), responses: ok } },
      "/header": { get: { operationId: "byHeader", parameters: parameters("header"), responses: ok } },
      "/cookie": { get: { operationId: "byCookie", parameters: parameters("cookie"), responses: ok } },
      "/json": { post: { operationId: "byJson", requestBody: { content: { "application/json": { schema: fields } } }, responses: ok } },
      "/form": { post: { operationId: "byForm", requestBody: { content: { "application/x-www-form-urlencoded": { schema: fields } } }, responses: ok } },
      "/settings": {
        put: { operationId: "putSettings", requestBody: { content: { "application/json": { schema: { type: "object", properties: { settings: { type: "object" } } } } } }, responses: ok },
      },
    },
  };
}

let database: Database;
let server: TestServer;
let receiver: ByteReceiver;
let apiKey: string;
let workDir: string;

const call = (tool: string, parameters: Record<string, unknown>) => callApi(server.url, "POST", "/tools/execute", apiKey, { tool_id: `members:${tool}`, parameters });
/** What the upstream received for one Call, checking the Call succeeded and sent exactly one request. */
async function received(tool: string, parameters: Record<string, unknown>): Promise<Received> {
  const before = receiver.received.length;
  const { status, body } = await call(tool, parameters);
  expect([status, body.success, body.error_message]).toEqual([200, true, null]);
  expect(receiver.received.length).toBe(before + 1);
  return receiver.received[before];
}
/** Header names as they arrived, lower-case (`headers` itself cannot hold one named `__proto__`). */
const headerNames = (sent: Received) => sent.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
const rawHeader = (sent: Received, name: string) => sent.rawHeaders[sent.rawHeaders.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === name) + 1];

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startByteReceiver();
  server = await startTestServer(database);
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-members-"));
  process.env.MEMBERS_KEY = "s3cret";
  ({ apiKey } = await seedAccount(database.db, { credits: "100" }));
});

afterAll(async () => {
  await receiver?.close();
  delete process.env.MEMBERS_KEY;
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe("an API with parameters named like object members, imported and called", () => {
  it("imports every operation (none skipped), `__proto__` as <location>___proto__ sent under its own name", async () => {
    const file = path.join(workDir, "members.json");
    fs.writeFileSync(file, JSON.stringify(membersDocument()));
    const result = await runCommand(database.db, ["providers", "import", "--openapi", file, "--id", "members", "--base-url", `${receiver.url}/base`, "--auth-env", "MEMBERS_KEY", "--price", "1", "--allow-private-network"]);
    expect(result).toMatchObject({ provider: "members", operations: 8, tools: 8, skipped: [] });
    const { body } = await callApi(server.url, "POST", "/tools/by-ids", apiKey, { tool_ids: ["members:byPath", "members:byJson"] });
    const names = (i: number) => body.results[i].params.map((p: { name: string }) => p.name);
    expect(names(0)).toEqual(NAMES.map((name) => toolName(name, "path")));
    expect(names(1)).toEqual(NAMES.map((name) => toolName(name, "body")));
  });

  it("called without them, nothing is sent for them: no query key, header, cookie, JSON or form field", async () => {
    expect((await received("byQuery", {})).query).toBe("");
    const headers = headerNames(await received("byHeader", {}));
    for (const name of NAMES) expect(headers).not.toContain(name.toLowerCase());
    expect(headerNames(await received("byCookie", {}))).not.toContain("cookie");
    expect((await received("byJson", {})).body.toString()).toBe("{}");
    expect((await received("byForm", {})).body.toString()).toBe("");
  });

  it("a path parameter left out is reported missing (422, not charged), not sent as an empty segment", async () => {
    const before = receiver.received.length;
    const { status, body } = await call("byPath", {});
    expect(status).toBe(422);
    expect(body.details.map((d: { type: string; loc: string[] }) => [d.type, d.loc[2]])).toEqual(NAMES.map((name) => ["missing", toolName(name, "path")]));
    expect(receiver.received.length).toBe(before);
  });

  it("called with them, exactly the given values are sent, under their own names", async () => {
    expect((await received("byPath", given("path"))).path).toBe("/base/path/c/t/h/p/v");
    expect((await received("byQuery", given("query"))).query).toBe("constructor=c&toString=t&hasOwnProperty=h&__proto__=p&valueOf=v");
    const headers = await received("byHeader", given("header"));
    expect(NAMES.map((name) => rawHeader(headers, name.toLowerCase()))).toEqual(GIVEN);
    expect(rawHeader(await received("byCookie", given("cookie")), "cookie")).toBe("constructor=c; toString=t; hasOwnProperty=h; __proto__=p; valueOf=v");
    expect((await received("byJson", given("body"))).body.toString()).toBe('{"constructor":"c","toString":"t","hasOwnProperty":"h","__proto__":"p","valueOf":"v"}');
    expect((await received("byForm", given("body"))).body.toString()).toBe("constructor=c&toString=t&hasOwnProperty=h&__proto__=p&valueOf=v");
  });

  it("`__proto__` in a client's JSON pollutes nothing: dropped as a parameter, sent as given inside a value", async () => {
    const hostile = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';
    const send = (text: string) =>
      fetch(`${server.url}/api/v1/tools/execute`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: text }).then(async (res) => ({ status: res.status, body: await res.json() }));
    const before = receiver.received.length;
    const top = await send(`{"tool_id":"members:byJson","__proto__":{"polluted":"yes"},"parameters":{"__proto__":{"polluted":"yes"},"toString":"t"}}`);
    expect([top.status, top.body.success]).toEqual([200, true]);
    expect(receiver.received[before].body.toString()).toBe('{"toString":"t"}');
    const nested = await send(`{"tool_id":"members:putSettings","parameters":{"settings":${hostile}}}`);
    expect([nested.status, nested.body.success]).toEqual([200, true]);
    expect(receiver.received[before + 1].body.toString()).toBe(`{"settings":${hostile}}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });
});

describe("a path parameter cannot take a Call outside its operation (issue 58)", () => {
  it('{"owner": "..", "repo": ".."} (which reached the upstream as GET /issues) is refused: 422, not charged, nothing sent; Probe says so', async () => {
    const before = receiver.received.length;
    const { status, body } = await call("listIssues", { owner: "..", repo: ".." });
    expect(status).toBe(422);
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "validation_error", charge_outcome: "failed_not_charged" } });
    expect(body.details).toEqual(
      ["owner", "repo"].map((name) => ({ type: "value_error", loc: ["body", "parameters", name], msg: expect.stringContaining(`"${name}" would make the path segment ".."`), input: ".." })),
    );
    expect(receiver.received.length).toBe(before);
    const probe = await callApi(server.url, "POST", "/tools/probe?tool_id=members:listIssues", apiKey, { parameters: { owner: "x", repo: "." }, checks: ["schema"] });
    expect(probe.body.schema).toEqual({ valid: false, details: [expect.objectContaining({ type: "value_error", loc: ["body", "parameters", "repo"], input: "." })] });
  });

  it("values that only look like dot segments reach the operation's own path, percent-encoded", async () => {
    expect((await received("listIssues", { owner: "...", repo: "%2e%2e" })).path).toBe("/base/repos/.../%252e%252e/issues");
    expect((await received("listIssues", { owner: "../..", repo: "a\\b" })).path).toBe("/base/repos/..%2F../a%5Cb/issues");
  });
});

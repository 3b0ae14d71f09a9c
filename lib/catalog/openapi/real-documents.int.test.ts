import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importCatalog } from "../import";
import { invalidateToolCache } from "../get-tool";
import type { Database } from "../../db/types";
import { createTestDatabase } from "../../testing/database";
import { callApi, seedAccount } from "../../testing/fixtures";
import { formDataOf, startByteReceiver, type ByteReceiver } from "../../testing/byte-receiver";
import { startTestServer, type TestServer } from "../../testing/server";
import { manifestFromOpenApi, type OpenApiImport } from "./convert";
import { readApiDocument } from "./read";

// The publishers' own documents (../shared/catalog/openapi/real/), imported as a user would, their
// servers replaced by a local receiver: a Call per body kind must arrive byte for byte, with the
// declared Content-Type and the operation's credential.
const REAL = "../shared/catalog/openapi/real";

const SECRETS = { SLACK_TOKEN: "xoxb-real-doc-1", BOX_TOKEN: "box-real-doc-1", OPENAI_KEY: "sk-real-doc-1" };

const DOCUMENTS = {
  slack: { file: "slack.json", base: "/slack/api", schemeEnv: { slackAuth: "SLACK_TOKEN" } },
  box: { file: "box.json", base: "/box/2.0", schemeEnv: { OAuth2Security: "BOX_TOKEN" } },
  // AdminApiKeyAuth's variable is deliberately left unset.
  openai: { file: "openai.yaml", base: "/openai/v1", schemeEnv: { ApiKeyAuth: "OPENAI_KEY", AdminApiKeyAuth: "OPENAI_ADMIN_KEY" } },
} as const;
type Doc = keyof typeof DOCUMENTS;

let database: Database;
let server: TestServer;
let receiver: ByteReceiver;
let apiKey: string;
const imports = {} as Record<Doc, OpenApiImport>;

/** The tool id of an operation, found by its operationId (ids are the converter's business). */
function toolOf(doc: Doc, operationId: string): string {
  const tool = imports[doc].manifest.providers[0].tools.find((t) => (t.execution as { operation_id?: string }).operation_id === operationId);
  if (!tool) throw new Error(`${doc} has no tool for ${operationId}`);
  return tool.id;
}

const call = (toolId: string, parameters: Record<string, unknown>) => callApi(server.url, "POST", "/tools/execute", apiKey, { tool_id: toolId, parameters });
const lastSent = () => receiver.received.at(-1)!;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startByteReceiver();
  Object.assign(process.env, SECRETS);
  delete process.env.OPENAI_ADMIN_KEY;
  for (const [doc, { file, base, schemeEnv }] of Object.entries(DOCUMENTS) as [Doc, (typeof DOCUMENTS)[Doc]][]) {
    const origin = `${REAL}/${file}`;
    const { document } = await readApiDocument(origin);
    imports[doc] = await manifestFromOpenApi(document, { origin, baseUrl: `${receiver.url}${base}`, allowPrivateNetwork: true, schemeEnv: { ...schemeEnv } });
    await importCatalog(database.db, imports[doc].manifest, { retireMissing: true });
  }
  server = await startTestServer(database);
  invalidateToolCache(database.db);
  ({ apiKey } = await seedAccount(database.db, { credits: "10" }));
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  for (const name of Object.keys(SECRETS)) delete process.env[name];
});

describe("the publishers' documents import whole", () => {
  it("Slack (Swagger 2.0, form bodies): every operation, none refused", () => {
    expect(imports.slack.skipped).toEqual([]);
    expect(imports.slack.manifest.providers[0].tools).toHaveLength(imports.slack.operations);
  });

  it("Box (3.0, multipart uploads, own servers): every operation but its two OPTIONS, refused with the reason", () => {
    expect(imports.box.skipped).toEqual([
      { operation: "OPTIONS /files/content", pointer: "/paths/~1files~1content/options", reason: "OPTIONS is not a method Tollgate calls (GET, POST, PUT, PATCH, DELETE)" },
      { operation: "OPTIONS /events", pointer: "/paths/~1events/options", reason: "OPTIONS is not a method Tollgate calls (GET, POST, PUT, PATCH, DELETE)" },
    ]);
    expect(imports.box.manifest.providers[0].tools).toHaveLength(imports.box.operations - 2);
  });

  it("OpenAI (3.1 YAML, JSON and multipart): every operation, none refused", () => {
    expect(imports.openai.skipped).toEqual([]);
    expect(imports.openai.manifest.providers[0].tools).toHaveLength(imports.openai.operations);
  });
});

describe("a Call per body kind arrives byte for byte, with its Content-Type and credential", () => {
  it("Slack chat.postMessage: a form body, the bearer token of slackAuth", async () => {
    const { body } = await call(toolOf("slack", "chat_postMessage"), { token: "xoxb-param", channel: "C123", text: "Hello from Tollgate & co", unfurl_links: false });
    expect(body).toMatchObject({ success: true });
    const sent = lastSent();
    expect(sent).toMatchObject({ method: "POST", path: "/slack/api/chat.postMessage", query: "" });
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(sent.headers.authorization).toBe("Bearer xoxb-real-doc-1");
    expect(sent.body.toString("utf8")).toBe("channel=C123&text=Hello+from+Tollgate+%26+co&unfurl_links=false");
  });

  it("Box upload: a multipart body with its JSON attributes part and the file's bytes, the OAuth2 bearer", async () => {
    const content = Buffer.from("hello, box\n\u00e9\u0000\u00ff", "latin1");
    const attributes = { name: "hello.txt", parent: { id: "0" } };
    const { body } = await call(toolOf("box", "post_files_content"), { attributes, file: `data:text/plain;base64,${content.toString("base64")}` });
    expect(body).toMatchObject({ success: true });
    const sent = lastSent();
    expect(sent).toMatchObject({ method: "POST", path: "/box/2.0/files/content" });
    expect(sent.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=\S+$/);
    expect(sent.headers.authorization).toBe("Bearer box-real-doc-1");
    const raw = sent.body.toString("latin1");
    // Box reads the attributes before the file: the parts keep the Call's order.
    expect(raw.indexOf('name="attributes"')).toBeLessThan(raw.indexOf('name="file"'));
    expect(raw).toContain(`Content-Disposition: form-data; name="attributes"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(attributes)}\r\n`);
    expect(raw).toContain(`Content-Disposition: form-data; name="file"; filename="file.txt"\r\nContent-Type: text/plain\r\n\r\n${content.toString("latin1")}\r\n`);
    const file = (await formDataOf(sent)).get("file") as File;
    expect(Buffer.from(await file.arrayBuffer())).toEqual(content);
  });

  it("OpenAI create fine-tuning job: a JSON body, the ApiKeyAuth bearer", async () => {
    const job = { model: "gpt-4o-mini", training_file: "file-abc123", hyperparameters: { n_epochs: 2 }, suffix: "tollgate" };
    const { body } = await call(toolOf("openai", "createFineTuningJob"), job);
    expect(body).toMatchObject({ success: true });
    const sent = lastSent();
    expect(sent).toMatchObject({ method: "POST", path: "/openai/v1/fine_tuning/jobs" });
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.headers.authorization).toBe("Bearer sk-real-doc-1");
    expect(JSON.parse(sent.body.toString("utf8"))).toEqual(job);
  });

  it("OpenAI file upload: a multipart file named by its data: URI, and a text part", async () => {
    const jsonl = Buffer.from('{"messages":[{"role":"user","content":"hi"}]}\n');
    const { body } = await call(toolOf("openai", "createFile"), { file: `data:application/jsonl;name=train.jsonl;base64,${jsonl.toString("base64")}`, purpose: "fine-tune" });
    expect(body).toMatchObject({ success: true });
    const sent = lastSent();
    expect(sent).toMatchObject({ method: "POST", path: "/openai/v1/files" });
    expect(sent.headers.authorization).toBe("Bearer sk-real-doc-1");
    const raw = sent.body.toString("latin1");
    expect(raw).toContain(`Content-Disposition: form-data; name="file"; filename="train.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n${jsonl.toString("latin1")}\r\n`);
    expect(raw).toContain('Content-Disposition: form-data; name="purpose"\r\n\r\nfine-tune\r\n');
    const form = await formDataOf(sent);
    expect(form.get("purpose")).toBe("fine-tune");
    expect(Buffer.from(await (form.get("file") as File).arrayBuffer())).toEqual(jsonl);
  });

  it("OpenAI admin operation whose scheme's variable is unset: provider.error naming it, nothing sent, not charged", async () => {
    const admin = imports.openai.manifest.providers[0].tools.find((t) => JSON.stringify((t.execution as { security?: unknown }).security ?? []).includes("AdminApiKeyAuth"));
    expect(admin).toBeDefined();
    const required = Object.fromEntries(admin!.params.filter((p) => p.required).map((p) => [p.name, p.enum?.[0] ?? (p.type === "string" ? "x" : p.type === "integer" || p.type === "number" ? 1 : p.type === "boolean" ? true : p.type === "array" ? [] : {})]));
    const before = receiver.received.length;
    const { body } = await call(admin!.id, required);
    expect(body).toMatchObject({ success: false, cost: 0, execution_outcome: { reason_code: "provider.error", charge_outcome: "failed_not_charged" } });
    expect(body.error_message).toContain('OPENAI_ADMIN_KEY (scheme "AdminApiKeyAuth", bearer)');
    expect(receiver.received.length).toBe(before);
  });
});

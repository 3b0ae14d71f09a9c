import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { HttpExecution, ToolManifest } from "../manifest";
import { manifestFromOpenApi } from "./convert";
import { parseApiText } from "./read";
import type { OpenApiImportOptions } from "./types";

// The publishers' own documents (Slack's Swagger 2.0, Box's 3.0, OpenAI's 3.1 YAML), as shipped.
const REAL = path.resolve("../shared/catalog/openapi/real");

/** Each document's variables, as an operator would name them; each is converted once for all tests (a few seconds each). */
const OPTIONS: Record<string, Partial<OpenApiImportOptions>> = {
  "slack.json": { authEnv: "SLACK_TOKEN" },
  "box.json": { schemeEnv: { OAuth2Security: "BOX_TOKEN" } },
  "openai.yaml": { schemeEnv: { ApiKeyAuth: "OPENAI_API_KEY", AdminApiKeyAuth: "OPENAI_ADMIN_KEY" } },
};
const converted = new Map<string, ReturnType<typeof manifestFromOpenApi>>();
const convert = (file: string) => {
  const location = path.join(REAL, file);
  if (!converted.has(file)) converted.set(file, manifestFromOpenApi(parseApiText(fs.readFileSync(location, "utf8"), location), { origin: location, ...OPTIONS[file] }));
  return converted.get(file)!;
};
const execution = (tool: ToolManifest) => tool.execution as HttpExecution;
const byOperation = (tools: ToolManifest[], operationId: string) => {
  const tool = tools.find((t) => execution(t).operation_id === operationId);
  if (!tool) throw new Error(`no tool for ${operationId}`);
  return tool;
};
const SLOW = 60_000;

describe("the publishers' real documents", () => {
  it.each([
    ["slack.json", 174, []],
    ["box.json", 296, ["OPTIONS /files/content: OPTIONS is not a method Tollgate calls (GET, POST, PUT, PATCH, DELETE)", "OPTIONS /events: OPTIONS is not a method Tollgate calls (GET, POST, PUT, PATCH, DELETE)"]],
    ["openai.yaml", 288, []],
  ])(
    "%s: every operation is a tool but HEAD/OPTIONS (%i operations)",
    async (file, operations, refused) => {
      const result = await convert(file);
      const tools = result.manifest.providers[0].tools;
      expect(result.operations).toBe(operations);
      expect(result.skipped.map((s) => `${s.operation}: ${s.reason}`)).toEqual(refused);
      expect(tools.length + result.skipped.length).toBe(result.operations);
      // No message points into the converted manifest.
      expect(JSON.stringify([result.skipped, result.warnings])).not.toMatch(/tools\[\d+\]/);
    },
    SLOW,
  );

  it(
    "Slack (Swagger 2.0): form bodies are sent as forms, their required fields required, the oauth2 scheme a bearer token",
    async () => {
      const result = await convert("slack.json");
      const tools = result.manifest.providers[0].tools;
      const post = byOperation(tools, "chat_postMessage");
      expect(post.name).toBe("Chat post message");
      expect(execution(post)).toMatchObject({ method: "POST", path: "/chat.postMessage", body: "form", body_types: [{ media_type: "application/x-www-form-urlencoded", kind: "form" }], security: [[{ scheme: "slackAuth", type: "bearer", env: "SLACK_TOKEN" }]] });
      expect(post.params.filter((p) => p.required).map((p) => p.name)).toEqual(["token", "channel"]);
      expect(post.params.map((p) => p.name)).toContain("text");
      // An optional form body is imported, not dropped.
      const react = byOperation(tools, "reactions_add");
      expect(execution(react).body).toBe("form");
      expect(react.params.map((p) => p.name)).toEqual(expect.arrayContaining(["channel", "name", "timestamp"]));
      expect(result.credentials).toEqual([{ scheme: "slackAuth", type: "bearer", env: "SLACK_TOKEN", operations: 174 }]);
    },
    SLOW,
  );

  it(
    "Box (3.0): uploads are multipart with a file part on the upload server, JSON Patch keeps its media type, 204s are empty successes",
    async () => {
      const result = await convert("box.json");
      const tools = result.manifest.providers[0].tools;
      const upload = byOperation(tools, "post_files_content");
      expect(execution(upload)).toMatchObject({ base_url: "https://upload.box.com/api/2.0", body: "multipart", files: ["file"] });
      expect(upload.params.find((p) => p.name === "file")).toMatchObject({ type: "string", description: expect.stringContaining("File content: base64, a data: URI") });
      // A server URL with a variable ({box-upload-server}) is filled with its default.
      expect(execution(byOperation(tools, "post_files_id_content")).base_url).toBe("https://upload.box.com/api/2.0");
      expect(execution(byOperation(tools, "post_oauth2_token"))).toMatchObject({ base_url: "https://api.box.com", body: "form" });
      const patch = tools.find((t) => execution(t).body_types?.[0].media_type === "application/json-patch+json")!;
      expect(execution(patch)).toMatchObject({ body: "json", body_param: "body" });
      expect(execution(byOperation(tools, "delete_files_id")).empty_success).toEqual(["204"]);
      expect(result.credentials).toEqual([{ scheme: "OAuth2Security", type: "bearer", env: "BOX_TOKEN", operations: 289 }]);
      // The token endpoints say `security: []`: nothing is sent to them.
      expect(execution(byOperation(tools, "post_oauth2_token")).security).toEqual([]);
    },
    SLOW,
  );

  it(
    "OpenAI (3.1 YAML): multipart uploads, JSON or multipart where both are offered, short names, each scheme its own variable",
    async () => {
      const result = await convert("openai.yaml");
      const tools = result.manifest.providers[0].tools;
      const chat = byOperation(tools, "createChatCompletion");
      expect(chat.name).toBe("Create chat completion");
      expect(chat.description).toMatch(/^Starting a new project\?/);
      const transcribe = byOperation(tools, "createTranscription");
      expect(execution(transcribe)).toMatchObject({ body: "multipart", files: ["file"] });
      expect(transcribe.params.find((p) => p.name === "file")).toMatchObject({ type: "string", required: true });
      const both = tools.find((t) => execution(t).body_types?.length === 2)!;
      expect(execution(both)).toMatchObject({ body: "json", body_types: [{ media_type: "application/json", kind: "json" }, { media_type: "multipart/form-data", kind: "multipart" }], content_type_param: "content_type" });
      expect(both.params.find((p) => p.name === "content_type")).toMatchObject({ enum: ["application/json", "multipart/form-data"], default: "application/json", required: false });
      expect(result.credentials.map((c) => [c.scheme, c.env])).toEqual([
        ["ApiKeyAuth", "OPENAI_API_KEY"],
        ["AdminApiKeyAuth", "OPENAI_ADMIN_KEY"],
      ]);
      expect(result.credentials.reduce((n, c) => n + c.operations, 0)).toBe(tools.length);
    },
    SLOW,
  );
});

import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z, type ZodRawShape } from "zod";

/**
 * A real MCP server over Streamable HTTP on 127.0.0.1 (port 0) for tests: one McpServer per
 * session, the SDK's transport, and a few tools covering the outcomes a Call must classify:
 * `add` (JSON data), `echo` (plain text, enum and array inputs), `fail` (isError), `nothing` (no content).
 * `tools/list` can be slowed down and a tool's input schema replaced, for live Inspect schemas.
 */
export interface TestMcpServer {
  /** The MCP endpoint (`.../mcp`). */
  url: string;
  /** tools/call requests served, by tool name. */
  calls: Record<string, number>;
  /** tools/list requests received. */
  lists: number;
  /** Delay before a tools/list request is answered. */
  listDelayMs: number;
  /** Replaces a tool's input schema for sessions opened from now on. */
  setInputSchema(tool: string, shape: ZodRawShape): void;
  close(): Promise<void>;
}

function buildServer(calls: Record<string, number>, inputSchemas: ReadonlyMap<string, ZodRawShape>): McpServer {
  const server = new McpServer({ name: "tollgate-test-mcp", version: "1.0.0" });
  const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
  const add = server.registerTool(
    "add",
    { description: "Adds two numbers.", inputSchema: { a: z.number().describe("First addend"), b: z.number().describe("Second addend") } },
    async ({ a, b }) => {
      count("add");
      return { content: [{ type: "text", text: JSON.stringify({ sum: a + b }) }] };
    },
  );
  const echo = server.registerTool(
    "echo",
    {
      description: "Repeats a text.",
      inputSchema: {
        text: z.string().max(200).describe("Text to repeat"),
        times: z.number().int().min(1).max(5).optional().describe("How many times"),
        style: z.enum(["plain", "shout"]).optional().describe("Letter case"),
        tags: z.array(z.string()).optional().describe("Labels, echoed back"),
      },
    },
    async ({ text, times, style, tags }) => {
      count("echo");
      const once = style === "shout" ? text.toUpperCase() : text;
      return { content: [{ type: "text", text: `${Array.from({ length: times ?? 1 }, () => once).join(" ")}${tags?.length ? ` [${tags.join(",")}]` : ""}` }] };
    },
  );
  const fail = server.registerTool("fail", { description: "Always fails.", inputSchema: { reason: z.string().optional() } }, async ({ reason }) => {
    count("fail");
    return { isError: true, content: [{ type: "text", text: `failed on purpose: ${reason ?? "no reason"}` }] };
  });
  const nothing = server.registerTool("nothing", { description: "Returns no content." }, async () => {
    count("nothing");
    return { content: [] };
  });
  const registered = new Map<string, RegisteredTool>([["add", add], ["echo", echo], ["fail", fail], ["nothing", nothing]]);
  for (const [name, shape] of inputSchemas) registered.get(name)?.update({ paramsSchema: shape });
  return server;
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export async function startTestMcpServer(): Promise<TestMcpServer> {
  const calls: Record<string, number> = {};
  const inputSchemas = new Map<string, ZodRawShape>();
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url?.startsWith("/mcp")) {
        res.writeHead(404).end();
        return;
      }
      const sessionId = req.headers["mcp-session-id"];
      const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      const body = req.method === "POST" ? await readJson(req) : undefined;
      if (ListToolsRequestSchema.safeParse(body).success) {
        control.lists++;
        await new Promise((resolve) => setTimeout(resolve, control.listDelayMs));
      }
      if (existing) return await existing.handleRequest(req, res, body);
      if (req.method === "POST" && !sessionId && isInitializeRequest(body)) {
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await buildServer(calls, inputSchemas).connect(transport);
        return await transport.handleRequest(req, res, body);
      }
      res.writeHead(sessionId ? 404 : 400, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: sessionId ? "Session not found" : "Bad request" }, id: null }));
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: (err as Error).message }, id: null }));
    }
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  const control: TestMcpServer = {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    lists: 0,
    listDelayMs: 0,
    setInputSchema: (tool, shape) => void inputSchemas.set(tool, shape),
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
  return control;
}

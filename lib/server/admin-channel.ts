import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Db } from "../db/types";
import { logger } from "../log";
import { runCommand, UsageError } from "../cli/commands";

/**
 * The local admin channel: with the embedded database only one process may open DATA_DIR, so
 * the CLI sends its command here and the running server executes it. A Unix socket inside
 * DATA_DIR (mode 0600): only the user who owns the data can reach it.
 */
export function adminSocketPath(dataDir: string): string {
  return path.join(dataDir, "admin.sock");
}

export async function startAdminChannel(db: Db, dataDir: string): Promise<() => void> {
  const socketPath = adminSocketPath(dataDir);
  fs.rmSync(socketPath, { force: true });
  const server = net.createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      buffer += chunk;
      const newline = buffer.indexOf("\n");
      if (newline < 0) return;
      const line = buffer.slice(0, newline);
      buffer = "";
      void handle(line).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
    socket.on("error", () => undefined);
  });
  async function handle(line: string): Promise<{ ok: true; result: unknown } | { ok: false; error: string; usage: boolean }> {
    try {
      const { argv } = JSON.parse(line) as { argv: string[] };
      logger.info({ command: argv.slice(0, 2).join(" ") }, "admin command");
      return { ok: true, result: await runCommand(db, argv) };
    } catch (err) {
      return { ok: false, error: (err as Error).message, usage: err instanceof UsageError };
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return () => {
    server.close();
    fs.rmSync(socketPath, { force: true });
  };
}

/** Sends one command to a running server's admin channel. */
export function sendAdminCommand(dataDir: string, argv: string[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(adminSocketPath(dataDir));
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ argv })}\n`));
    socket.on("data", (chunk) => (buffer += chunk));
    socket.on("error", (err) => reject(new Error(`Cannot reach the running server's admin channel: ${err.message}`)));
    socket.on("end", () => {
      try {
        const reply = JSON.parse(buffer) as { ok: boolean; result?: unknown; error?: string; usage?: boolean };
        if (reply.ok) resolve(reply.result);
        else reject(reply.usage ? new UsageError(reply.error) : new Error(reply.error));
      } catch {
        reject(new Error("The admin channel closed without a reply"));
      }
    });
  });
}

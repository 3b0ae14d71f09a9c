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
  // One request line per connection; answers are JSON lines: any number of `{progress}` lines
  // (a long import reports as it goes), then the reply, then the socket closes.
  const server = net.createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      buffer += chunk;
      const newline = buffer.indexOf("\n");
      if (newline < 0) return;
      const line = buffer.slice(0, newline);
      buffer = "";
      const progress = (message: string) => void (socket.writable && socket.write(`${JSON.stringify({ progress: message })}\n`));
      void handle(line, progress).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
    socket.on("error", () => undefined);
  });
  async function handle(line: string, progress: (message: string) => void): Promise<{ ok: true; result: unknown } | { ok: false; error: string; usage: boolean }> {
    try {
      const { argv } = JSON.parse(line) as { argv: string[] };
      logger.info({ command: argv.slice(0, 2).join(" ") }, "admin command");
      return { ok: true, result: await runCommand(db, argv, { progress }) };
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

/** Sends one command to a running server's admin channel; `progress` receives its progress lines. */
export function sendAdminCommand(dataDir: string, argv: string[], progress?: (message: string) => void): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(adminSocketPath(dataDir));
    let buffer = "";
    let settled = false;
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ argv })}\n`));
    socket.on("data", (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, newline)) as { progress?: string; ok?: boolean; result?: unknown; error?: string; usage?: boolean };
        buffer = buffer.slice(newline + 1);
        if (message.progress !== undefined) progress?.(message.progress);
        else {
          settled = true;
          if (message.ok) resolve(message.result);
          else reject(message.usage ? new UsageError(message.error) : new Error(message.error));
        }
      }
    });
    socket.on("error", (err) =>
      reject(
        new Error(
          `Cannot reach the running server's admin channel (${err.message}). The embedded database in ${dataDir} is held by another process; ` +
            "stop it, or run the command while its server is up.",
        ),
      ),
    );
    socket.on("end", () => {
      if (!settled) reject(new Error("The admin channel closed without a reply"));
    });
  });
}

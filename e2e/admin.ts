import crypto from "node:crypto";
import net from "node:net";
import path from "node:path";

/**
 * Seeds accounts for a spec through the running server's admin channel (the Unix socket the CLI
 * uses, `DATA_DIR/admin.sock`), so a spec that spends credits never changes the demo account
 * other specs assert on. `dataDir` names another server's (one a spec started itself).
 */
export function adminCommand(argv: string[], dataDir: string | undefined = process.env.E2E_DATA_DIR): Promise<unknown> {
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set: seeding needs the server started by global setup");
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(path.join(dataDir, "admin.sock"));
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ argv })}\n`));
    socket.on("data", (chunk) => (buffer += chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      try {
        // A long command (an import) sends `{progress}` lines first; the reply is the last line.
        const reply = JSON.parse(buffer.trimEnd().split("\n").at(-1) ?? "") as { ok: boolean; result?: unknown; error?: string };
        if (reply.ok) resolve(reply.result);
        else reject(new Error(`admin ${argv.slice(0, 2).join(" ")}: ${reply.error}`));
      } catch {
        reject(new Error("The admin channel closed without a reply"));
      }
    });
  });
}

export interface SeededUser {
  accountId: string;
  userId: string;
  email: string;
  password: string;
}

export function canSeed(): boolean {
  return Boolean(process.env.E2E_DATA_DIR);
}

/** A fresh account with `credits` (a welcome grant) and one user of the given role. */
export async function seedUser(options: { credits?: number; role?: "owner" | "member" | "support"; label: string }): Promise<SeededUser> {
  const suffix = crypto.randomBytes(4).toString("hex");
  const account = (await adminCommand(["accounts", "create", "--name", `e2e ${options.label} ${suffix}`, ...(options.credits ? ["--credits", String(options.credits)] : [])])) as {
    account_id: string;
  };
  const email = `e2e-${options.label}-${suffix}@example.test`;
  const password = `pw-${crypto.randomBytes(9).toString("hex")}`;
  const user = (await adminCommand(["users", "create", "--account", account.account_id, "--email", email, "--password", password, "--role", options.role ?? "owner"])) as { user_id: string };
  return { accountId: account.account_id, userId: user.user_id, email, password };
}

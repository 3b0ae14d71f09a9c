import fs from "node:fs";
import path from "node:path";

/**
 * PGlite has no inter-process lock: two processes on one data directory corrupt it.
 * The process that opens the directory holds `<dataDir>.lock` (created with `wx`) until it exits.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database at ${path.dirname(lockFile)} is in use by process ${pid}. ` +
        `Stop that process, or use the running server's admin channel (the CLI does this automatically).`,
    );
    this.name = "DataDirLockedError";
  }
}

export function lockFileFor(dataDir: string): string {
  return `${dataDir.replace(/\/$/, "")}.lock`;
}

export function lockHolder(dataDir: string): number | undefined {
  const file = lockFileFor(dataDir);
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(file, "utf8"), 10);
  } catch {
    return undefined;
  }
  return Number.isFinite(pid) && isAlive(pid) ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the lock or throws DataDirLockedError; a lock left by a dead process is taken over. */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = lockFileFor(dataDir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(file, "utf8") === String(process.pid)) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
      process.once("exit", release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const holder = lockHolder(dataDir);
      if (holder !== undefined && holder !== process.pid) throw new DataDirLockedError(file, holder);
      fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}

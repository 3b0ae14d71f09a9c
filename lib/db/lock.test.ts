import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DataDirLockedError, acquireDataDirLock, lockFileFor, lockHolder } from "./lock";

const freshDir = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-lock-")), "pgdata");

describe("the embedded database lock", () => {
  it("refuses a data directory held by another live process", () => {
    const dir = freshDir();
    fs.writeFileSync(lockFileFor(dir), String(process.ppid));
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    expect(lockHolder(dir)).toBe(process.ppid);
  });

  it("takes over a lock left by a dead process, and releases it", () => {
    const dir = freshDir();
    fs.writeFileSync(lockFileFor(dir), "999999999");
    const release = acquireDataDirLock(dir);
    expect(fs.readFileSync(lockFileFor(dir), "utf8")).toBe(String(process.pid));
    release();
    expect(fs.existsSync(lockFileFor(dir))).toBe(false);
  });
});

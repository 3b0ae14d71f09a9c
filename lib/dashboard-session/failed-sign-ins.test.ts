import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FailedSignIns } from "./failed-sign-ins";

beforeEach(() => vi.useFakeTimers({ now: 0 }));
afterEach(() => vi.useRealTimers());

const minutes = (n: number) => vi.advanceTimersByTime(n * 60_000);

describe("FailedSignIns", () => {
  it("writes the first failure of a user's window and counts the rest, whatever their number", () => {
    const log = new FailedSignIns(15);
    expect(log.note("usr_a", "password")).toEqual({ write: true, windowMinutes: 15 });
    for (let i = 0; i < 500; i++) expect(log.note("usr_a", "password")).toEqual({ write: false });
    minutes(14);
    expect(log.note("usr_a", "password")).toEqual({ write: false });
  });

  it("opens the next window with the previous window's count", () => {
    const log = new FailedSignIns(15);
    for (let i = 0; i < 40; i++) log.note("usr_a", "password");
    minutes(15);
    expect(log.note("usr_a", "password")).toEqual({ write: true, windowMinutes: 15, previousWindow: { startedAt: new Date(0), failures: 40 } });
    // A window that held only its written failure needs no count.
    minutes(15);
    expect(log.note("usr_a", "password")).toEqual({ write: true, windowMinutes: 15 });
  });

  it("keeps users apart, and a wrong second factor apart from wrong passwords", () => {
    const log = new FailedSignIns(15);
    expect(log.note("usr_a", "password").write).toBe(true);
    expect(log.note("usr_b", "password").write).toBe(true);
    expect(log.note("usr_a", "second_factor").write).toBe(true);
    expect(log.note("usr_a", "second_factor").write).toBe(false);
    expect(log.note("usr_a", "password").write).toBe(false);
  });

  it("remembers a bounded number of windows, the least recently opened forgotten first", () => {
    const log = new FailedSignIns(15, 2);
    log.note("usr_a", "password");
    log.note("usr_b", "password");
    log.note("usr_c", "password");
    expect(log.note("usr_b", "password").write).toBe(false);
    expect(log.note("usr_a", "password").write).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { newId, newRequestId, newUuid } from "./ids";

describe("newId", () => {
  it("is a prefixed, lower-case ULID, time-ordered and unique", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("exe"));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^exe_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const time = (id: string) => id.slice(4, 14);
    expect(time(ids[0]) <= time(ids.at(-1)!)).toBe(true);
  });

  it("draws every character of the alphabet in its random part (the pool refills past 4 KiB)", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) for (const ch of newId("led").slice(14)) seen.add(ch);
    expect(seen.size).toBe(32);
  });
});

describe("newUuid", () => {
  it("is a version 7 uuid", () => {
    expect(newUuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("is unique across many refills of the random pool", () => {
    const ids = Array.from({ length: 20_000 }, () => newUuid());
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("newRequestId", () => {
  it("is distinct on every call and passes the incoming X-Request-Id rule, so it round-trips", () => {
    const ids = Array.from({ length: 1000 }, () => newRequestId());
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{12}_[0-9a-z]+$/);
    expect(ids[0].length).toBeGreaterThanOrEqual(8);
  });
});

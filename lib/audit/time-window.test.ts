import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import { chooseBucket, parseBucket, parseDateParam, resolveTimeZone, sealedSpan } from "./time-window";
import { testWindow } from "./testing-history";

const invalid = (fn: () => unknown, message: RegExp) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("invalid_input");
    expect((err as Error).message).toMatch(message);
    return;
  }
  throw new Error("expected an invalid_input error");
};

describe("date parameters", () => {
  it("accepts dates and ISO-8601 datetimes, with or without offset", () => {
    expect(parseDateParam("start_date", "2026-08-01")).toEqual({ kind: "date", value: "2026-08-01" });
    expect(parseDateParam("start_date", "2026-08-01T10:00:00Z")).toEqual({ kind: "instant", value: "2026-08-01T10:00:00Z" });
    expect(parseDateParam("start_date", "2026-08-01T10:00:00.123456+05:30")?.kind).toBe("instant");
    expect(parseDateParam("start_date", "2026-08-01 10:00")).toEqual({ kind: "local", value: "2026-08-01T10:00" });
    expect(parseDateParam("start_date", undefined)).toBeUndefined();
  });
  it("rejects anything else with the 400 -7 message", () => {
    for (const v of ["2026-13-01", "2026-02-29", "01/08/2026", "2026-08-01T25:00:00Z", "now", "2026-08-01T10:00:00+99:00"]) {
      invalid(() => parseDateParam("end_date", v), /Invalid end_date/);
    }
  });
});

describe("tz and bucket", () => {
  it("validates IANA zones", () => {
    expect(resolveTimeZone(undefined)).toBe("UTC");
    expect(resolveTimeZone("Europe/Paris")).toBe("Europe/Paris");
    invalid(() => resolveTimeZone("Mars/Phobos"), /Invalid tz/);
    invalid(() => resolveTimeZone("'; drop table x; --"), /Invalid tz/);
  });
  it("picks day buckets for windows over three days, else hour", () => {
    const start = new Date("2026-08-01T00:00:00Z");
    expect(chooseBucket(undefined, { start, end: new Date("2026-08-04T00:00:00Z") })).toBe("hour");
    expect(chooseBucket(undefined, { start, end: new Date("2026-08-04T00:00:01Z") })).toBe("day");
    expect(chooseBucket("week", { start, end: new Date("2026-08-02T00:00:00Z") })).toBe("week");
    expect(parseBucket("day")).toBe("day");
    invalid(() => parseBucket("month"), /Invalid bucket/);
  });
});

describe("sealedSpan", () => {
  const w = testWindow;
  it("serves whole sealed hours from the rollup and leaves the partial edges to raw rows", () => {
    expect(sealedSpan(w("2026-08-01T10:30:00.000000Z", "2026-08-05T00:00:00.000000Z", "2026-08-10T11:00:00Z"))).toEqual({
      lo: new Date("2026-08-01T11:00:00Z"),
      hi: new Date("2026-08-05T00:00:00Z"),
    });
    expect(sealedSpan(w("2026-08-01T10:00:00.000000Z", null, "2026-08-10T11:00:00Z"))).toEqual({ lo: new Date("2026-08-01T10:00:00Z"), hi: new Date("2026-08-10T11:00:00Z") });
    expect(sealedSpan(w(null, null, null))).toBeNull();
    expect(sealedSpan(w("2026-08-01T10:10:00.000000Z", "2026-08-01T10:50:00.000000Z", "2026-08-10T11:00:00Z"))).toBeNull();
  });
});

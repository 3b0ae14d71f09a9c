import { describe, expect, it } from "vitest";
import { dayIn, formatDateTime, formatZonedDateTime } from "./format";
import { canonicalTimeZone } from "./time-zone";

describe("formatZonedDateTime", () => {
  it("writes a budget's reset with its year and the zone it is shown in", () => {
    // 2026-11-30T16:00Z is midnight of 1 December in Shanghai (UTC+8) and 17:00 of 30 November in Berlin.
    expect(formatZonedDateTime("2026-11-30T16:00:00.000Z", "Asia/Shanghai", "en")).toBe("2026-12-01 00:00 (Asia/Shanghai)");
    expect(formatZonedDateTime("2026-11-30T16:00:00.000Z", "Europe/Berlin", "en")).toBe("2026-11-30 17:00 (Europe/Berlin)");
    expect(formatZonedDateTime("2026-11-30T16:00:00.000Z", "Asia/Shanghai", "zh")).toBe("2026-12-01 00:00（Asia/Shanghai）");
  });

  it("keeps seconds when asked and a dash for no instant", () => {
    expect(formatZonedDateTime("2026-11-30T16:00:07.000Z", "UTC", "en", { seconds: true })).toBe("2026-11-30 16:00:07 (UTC)");
    expect(formatZonedDateTime(null, "UTC", "en")).toBe("—");
  });
});

describe("dayIn", () => {
  it("reads a month's exclusive end as its last day in the zone", () => {
    // September 2026 in Shanghai: [2026-08-31T16:00Z, 2026-09-30T16:00Z).
    expect(dayIn("2026-08-31T16:00:00.000Z", "Asia/Shanghai")).toBe("2026-09-01");
    expect(dayIn("2026-09-30T16:00:00.000Z", "Asia/Shanghai", { exclusiveEnd: true })).toBe("2026-09-30");
    expect(dayIn("2026-09-30T16:00:00.000Z", "UTC", { exclusiveEnd: true })).toBe("2026-09-30");
  });
});

describe("canonicalTimeZone", () => {
  it("spells a zone as IANA writes it, whatever case the URL used", () => {
    expect(canonicalTimeZone("asia/shanghai")).toBe("Asia/Shanghai");
    expect(canonicalTimeZone("ASIA/SHANGHAI")).toBe("Asia/Shanghai");
    expect(canonicalTimeZone("Europe/Berlin")).toBe("Europe/Berlin");
    expect(canonicalTimeZone("utc")).toBe("UTC");
    expect(canonicalTimeZone("Not/AZone")).toBeNull();
  });

  it("formats in the canonical zone", () => {
    expect(formatDateTime("2026-06-01T00:00:00.000Z", canonicalTimeZone("america/new_york")!, { seconds: false })).toBe("2026-05-31 20:00");
  });
});

import { describe, expect, it } from "vitest";
import { formatMoney, minorDigits, monthPeriod, priceMinor } from "./billing";

describe("money on the Billing page", () => {
  it("formats minor units exactly in the page's language", () => {
    expect(formatMoney(1250, "usd", "en-US")).toBe("$12.50");
    expect(formatMoney(5, "usd", "en-US")).toBe("$0.05");
    expect(formatMoney(123456789012345, "usd", "en-US")).toBe("$1,234,567,890,123.45");
    expect(formatMoney(500, "jpy", "en-US")).toBe("¥500");
    expect(formatMoney(1250, "eur", "zh-CN")).toBe("€12.50");
    expect(formatMoney("0.5", "usd", "en-US")).toBe("$0.005");
    expect(formatMoney("12.25", "usd", "en-US")).toBe("$0.1225");
    expect(formatMoney(-250, "usd", "en-US")).toBe("-$2.50");
    expect(minorDigits("usd")).toBe(2);
    expect(minorDigits("jpy")).toBe(0);
  });

  it("prices credits exactly, and only in whole minor units", () => {
    expect(priceMinor("100", "1")).toBe(100);
    expect(priceMinor("0.5", "10")).toBe(5);
    expect(priceMinor("3", "0.333333")).toBeNull();
    expect(priceMinor("1000000", "0.000001")).toBe(1);
    expect(priceMinor("1.0000001", "1")).toBeNull();
    expect(priceMinor("abc", "1")).toBeNull();
  });

  it("names a UTC calendar month as the reconciliation's period, across a year's end", () => {
    expect(monthPeriod(new Date("2026-11-29T23:59:00Z"), 0)).toEqual({ from: "2026-11-01", to: "2026-12-01" });
    expect(monthPeriod(new Date("2027-01-03T00:00:00Z"), -1)).toEqual({ from: "2026-12-01", to: "2027-01-01" });
  });
});

import { describe, expect, it } from "vitest";
import { parseLocale, translator } from "./i18n";

describe("i18n", () => {
  it("falls back to English for a missing or unknown locale", () => {
    expect(parseLocale(undefined)).toBe("en");
    expect(parseLocale("fr")).toBe("en");
    expect(parseLocale("zh")).toBe("zh");
  });

  it("translates and fills placeholders", () => {
    expect(translator("zh")("nav.overview")).toBe("概览");
    expect(translator("en")("table.pageOf", { page: 2, pages: 5 })).toBe("Page 2 of 5");
  });
});

import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, enumParam, pagingParams } from "./url-state";

const url = (query: string) => new URLSearchParams(query);

describe("pagingParams", () => {
  it("reads page and an offered page size", () => {
    expect(pagingParams(url("page=3&page_size=100"))).toEqual({ page: 3, pageSize: 100 });
  });

  it("falls back to page 1 and the default size for missing, malformed or unoffered values", () => {
    expect(pagingParams(url(""))).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE });
    expect(pagingParams(url("page=0&page_size=7"))).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE });
    expect(pagingParams(url("page=-2&page_size=abc"))).toEqual({ page: 1, pageSize: DEFAULT_PAGE_SIZE });
  });
});

describe("enumParam", () => {
  it("keeps only a value of the closed set", () => {
    expect(enumParam(url("bucket=day"), "bucket", ["hour", "day"] as const)).toBe("day");
    expect(enumParam(url("bucket=week"), "bucket", ["hour", "day"] as const)).toBeUndefined();
  });
});

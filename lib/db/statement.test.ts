import { describe, expect, it } from "vitest";
import { executions } from "./schema";
import { columnJson, columnList } from "./statement";

describe("columnJson", () => {
  it("keys a row by column name: dates as ISO text, numerics as exact text, json as nested JSON; skips undefined", () => {
    const at = new Date("2026-11-22T10:00:00.000Z");
    const { json, columns } = columnJson(executions, {
      id: "exe_1",
      parameters: [1, { a: "x'; DROP TABLE t; --" }],
      reservedCredits: "1.5",
      settledCredits: 2,
      settledAt: at,
      response: null,
      model: undefined,
    });
    expect(json).toEqual({
      id: "exe_1",
      parameters: [1, { a: "x'; DROP TABLE t; --" }],
      reserved_credits: "1.5",
      settled_credits: "2",
      settled_at: "2026-11-22T10:00:00.000Z",
      response: null,
    });
    expect(columns).toEqual(["id", "parameters", "reserved_credits", "response", "settled_at", "settled_credits"]);
  });

  it("refuses a key that is not a column", () => {
    expect(() => columnJson(executions, { nope: 1 })).toThrow(/nope is not a column/);
  });

  it("quotes column lists, with an optional prefix", () => {
    expect(columnList(["id", "tool_id"], "r.")).toBe('r."id", r."tool_id"');
  });
});

import { describe, expect, it } from "vitest";
import { executions } from "./schema";
import { JsonText, columnJson, columnJsonText, columnList, jobsJson } from "./statement";

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

  it("columnJsonText: the same columns, and text that parses to the same JSON", () => {
    const row = {
      id: "exe_1",
      parameters: [1, { a: "x'; DROP TABLE t; --", "q\"uote": "\u2028 \\ é" }],
      reservedCredits: "1.5",
      settledCredits: 2,
      settledAt: new Date("2026-11-22T10:00:00.000Z"),
      response: null,
      model: undefined,
      success: false,
      durationMs: 12,
    };
    const text = columnJsonText(executions, row);
    const plain = columnJson(executions, row);
    expect(text.columns).toEqual(plain.columns);
    expect(JSON.parse(text.json.text)).toEqual(plain.json);
    expect(columnJsonText(executions, {}).json.text).toBe("{}");
    expect(() => columnJsonText(executions, { id: "x", nope: 1 })).toThrow(/nope is not a column/);
    // The key names the column list: equal lists, equal keys; another list, another key.
    expect(columnJsonText(executions, { ...row, id: "exe_2", durationMs: 1 }).columnsKey).toBe(text.columnsKey);
    expect(columnJsonText(executions, { ...row, model: "m" }).columnsKey).not.toBe(text.columnsKey);
    expect(columnJsonText(executions, { id: "x" }).columnsKey).not.toBe(columnJsonText(executions, { model: "x" }).columnsKey);
  });

  it("jobsJson: JSON.stringify, with JsonText copied as it is", () => {
    const ex = columnJsonText(executions, { id: "exe_1", parameters: { a: [1, "b"] } });
    const jobs = [{ account_id: "acc_1", amount: "1", jti: undefined, ledger: { id: "led_1", meta: { k: null } }, execution: ex.json }, {}];
    expect(jobsJson(jobs)).toBe(JSON.stringify([{ account_id: "acc_1", amount: "1", ledger: { id: "led_1", meta: { k: null } }, execution: JSON.parse(ex.json.text) }, {}]));
    expect(jobsJson([])).toBe("[]");
    expect(new JsonText("{}").text).toBe("{}");
  });

  it("quotes column lists, with an optional prefix", () => {
    expect(columnList(["id", "tool_id"], "r.")).toBe('r."id", r."tool_id"');
  });
});

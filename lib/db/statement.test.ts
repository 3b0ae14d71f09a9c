import { describe, expect, it } from "vitest";
import { executions } from "./schema";
import { ident, joinStmts, q, raw, rowStmt, toQuery } from "./statement";

describe("Stmt", () => {
  it("numbers parameters across nested statements and never inlines a value", () => {
    const inner = q`b = ${"x'; DROP TABLE t; --"} AND c = ${2}`;
    const { sql, params } = toQuery(q`SELECT ${1} WHERE ${inner} AND ${raw("true")} AND d = ${undefined}`);
    expect(sql).toBe("SELECT $1 WHERE b = $2 AND c = $3 AND true AND d = $4");
    expect(params).toEqual([1, "x'; DROP TABLE t; --", 2, null]);
  });

  it("joins statements and quotes identifiers", () => {
    expect(toQuery(joinStmts([q`${1}`, raw("x"), q`${2}`], " OR ")).sql).toBe("$1 OR x OR $2");
    expect(toQuery(joinStmts([])).sql).toBe("");
    expect(toQuery(ident('we"ird')).sql).toBe('"we""ird"');
  });

  it("encodes a row by column type: jsonb, numeric, timestamptz, nested SQL; skips undefined", () => {
    const at = new Date("2026-11-22T10:00:00.000Z");
    const row = rowStmt(executions, { id: "exe_1", parameters: [1, 2], reservedCredits: "1.5", settledAt: at, response: null, model: undefined, toolId: raw("t.id") });
    expect(toQuery(row.columns).sql).toBe('"id", "parameters", "reserved_credits", "settled_at", "response", "tool_id"');
    const values = toQuery(row.values);
    expect(values.sql).toBe("$1, $2::jsonb, $3::numeric, $4::timestamptz, null, t.id");
    expect(values.params).toEqual(["exe_1", "[1,2]", "1.5", "2026-11-22T10:00:00.000Z"]);
    expect(toQuery(row.pairs).sql).toBe('"id" = $1, "parameters" = $2::jsonb, "reserved_credits" = $3::numeric, "settled_at" = $4::timestamptz, "response" = null, "tool_id" = t.id');
  });

  it("refuses a key that is not a column", () => {
    expect(() => rowStmt(executions, { nope: 1 })).toThrow(/nope is not a column/);
  });
});

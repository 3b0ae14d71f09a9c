import { describe, expect, it } from "vitest";
import { guardCell, keysetCsvStream } from "./csv";

describe("guardCell", () => {
  it("prefixes text cells that a spreadsheet would run as a formula", () => {
    for (const s of ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx", '=HYPERLINK("http://x","y")']) expect(guardCell(s)).toBe(`'${s}`);
  });
  it("keeps plain numbers (negative amounts), booleans, empty cells and ordinary text", () => {
    expect(guardCell("-5")).toBe("-5");
    expect(guardCell("-0.25")).toBe("-0.25");
    expect(guardCell(-3)).toBe("-3");
    expect(guardCell(true)).toBe("true");
    expect(guardCell(null)).toBe("");
    expect(guardCell("a=b")).toBe("a=b");
  });
});

describe("keysetCsvStream", () => {
  it("reads batch after batch from the last row, and stops on a short batch", async () => {
    const data = Array.from({ length: 5 }, (_, i) => ({ n: i, text: i === 2 ? 'say "hi", then\nleave' : `row ${i}` }));
    const afters: (number | null)[] = [];
    const stream = keysetCsvStream<{ n: number; text: string }>({
      header: ["n", "text"],
      batchSize: 2,
      fetch: async (after, limit) => {
        afters.push(after?.n ?? null);
        const from = after ? after.n + 1 : 0;
        return data.slice(from, from + limit);
      },
      cells: (r) => [r.n, r.text],
    });
    const text = await new Response(stream).text();
    expect(text).toBe('n,text\n0,row 0\n1,row 1\n2,"say ""hi"", then\nleave"\n3,row 3\n4,row 4\n');
    expect(afters).toEqual([null, 1, 3]);
  });
});

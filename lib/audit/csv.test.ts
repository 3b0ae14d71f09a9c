import { stringify } from "csv-stringify/sync";
import { describe, expect, it } from "vitest";
import { TRICKY } from "../testing/csv";
import { type Cell, csvField, csvLine, guardCell, keysetCsvStream } from "./csv";

/** What the export wrote before it built lines itself: guarded cells through csv-stringify's defaults. */
function csvStringify(header: string[], records: Cell[][]): string {
  return stringify(records.map((r) => r.map(guardCell)), { header: true, columns: header });
}

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

describe("csvField and csvLine", () => {
  it("quote a field holding a quote, comma, CR or LF, doubling its quotes, after the formula guard", () => {
    expect(csvField('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvField("a\r\nb")).toBe('"a\r\nb"');
    expect(csvField("\rx")).toBe(`"'\rx"`);
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvField("-0.25")).toBe("-0.25");
    expect(csvField(-1e21)).toBe("'-1e+21");
    expect(csvField("ünïcödé")).toBe("ünïcödé");
  });

  it("write an empty cell for null, undefined and the empty string alike", () => {
    expect(csvLine([null, undefined, "", "x"])).toBe(",,,x\n");
  });

  it("write every tricky cell byte for byte as csv-stringify did", () => {
    for (const cell of TRICKY) expect(csvLine(["id", cell, "end"]), JSON.stringify(cell)).toBe(csvStringify(["a", "b", "c"], [["id", cell, "end"]]).split("\n").slice(1).join("\n"));
    expect(`a,b\n${TRICKY.map((c) => csvLine([c, c])).join("")}`).toBe(csvStringify(["a", "b"], TRICKY.map((c) => [c, c])));
  });

  it("agree with csv-stringify on random strings of the characters that matter", () => {
    const alphabet = ['"', ",", "\r", "\n", "=", "+", "-", "@", "\t", "'", " ", "a", "1", ".", "é", "🎉"];
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const records = Array.from({ length: 2000 }, () =>
      Array.from({ length: 3 }, () => Array.from({ length: Math.floor(random() * 6) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("")),
    );
    expect(`x,y,z\n${records.map(csvLine).join("")}`).toBe(csvStringify(["x", "y", "z"], records));
  });
});

/** A stream over `data` in batches, recording the cursor and limit of every fetch. */
function streamOf(data: Cell[][], batchSize: number) {
  const fetches: { after: number | null; limit: number }[] = [];
  const rows = data.map((cells, n) => ({ n, cells }));
  const stream = keysetCsvStream<{ n: number; cells: Cell[] }>({
    header: ["n", "text"],
    batchSize,
    fetch: async (after, limit) => {
      fetches.push({ after: after?.n ?? null, limit });
      const from = after ? after.n + 1 : 0;
      return rows.slice(from, from + limit);
    },
    cells: (r) => r.cells,
  });
  return { stream, fetches };
}

describe("keysetCsvStream", () => {
  it("reads batch after batch from the last row, and stops on a short batch", async () => {
    const data = Array.from({ length: 5 }, (_, i) => [String(i), i === 2 ? 'say "hi", then\nleave' : `row ${i}`]);
    const { stream, fetches } = streamOf(data, 2);
    const text = await new Response(stream).text();
    expect(text).toBe('n,text\n0,row 0\n1,row 1\n2,"say ""hi"", then\nleave"\n3,row 3\n4,row 4\n');
    expect(fetches.map((f) => f.after)).toEqual([null, 1, 3]);
  });

  it("writes the header alone when there is no row, and reads once more after a full last batch", async () => {
    expect(await new Response(streamOf([], 2).stream).text()).toBe("n,text\n");
    const { stream, fetches } = streamOf([["0", "x"], ["1", "x"]], 2);
    expect(await new Response(stream).text()).toBe("n,text\n0,x\n1,x\n");
    expect(fetches.map((f) => f.after)).toEqual([null, 1]);
  });

  it("writes what csv-stringify wrote for a multi-batch export of tricky cells", async () => {
    const data = TRICKY.map((cell, n) => [n, cell]);
    expect(await new Response(streamOf(data, 7).stream).text()).toBe(csvStringify(["n", "text"], data));
  });

  it("asks for fewer rows per batch when rows are large, so a batch stays about two megabytes", async () => {
    const data = Array.from({ length: 200 }, () => ["x".repeat(100_000)]);
    const { stream, fetches } = streamOf(data, 100);
    const lines = (await new Response(stream).text()).split("\n");
    expect(lines).toHaveLength(202);
    expect(fetches[0].limit).toBe(100);
    expect(Math.max(...fetches.slice(2).map((f) => f.limit))).toBeLessThanOrEqual(21);
  });

  it("stops reading while the response takes no chunks: about a megabyte queued and one batch ahead", async () => {
    // Batches of about 1 MB.
    const data = Array.from({ length: 10_000 }, (_, n) => [String(n), "x".repeat(1000)]);
    const { stream, fetches } = streamOf(data, 1000);
    const reader = stream.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 50));
    expect(fetches.length).toBeLessThanOrEqual(3);
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 10));
    expect(fetches.length).toBeLessThanOrEqual(3);
  });

  it("fails the stream when a batch query fails", async () => {
    let calls = 0;
    const stream = keysetCsvStream<{ n: number }>({
      header: ["n"],
      batchSize: 1,
      fetch: async () => {
        if (++calls > 1) throw new Error("connection lost");
        return [{ n: 1 }];
      },
      cells: (r) => [r.n],
    });
    await expect(new Response(stream).text()).rejects.toThrow("connection lost");
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { decodeInlineFile, fileValueIssues, FileValueError, MAX_CALL_FILE_BYTES, resolveFile } from "./http-files";

afterEach(() => {
  delete process.env.OUTBOUND_FILE_URLS;
});

describe("inline file values", () => {
  it("base64, standard or URL-safe, whitespace ignored", () => {
    expect(decodeInlineFile("aGVs\nbG8=", "f").bytes.toString()).toBe("hello");
    expect(decodeInlineFile("-_8", "f").bytes).toEqual(Buffer.from([0xfb, 0xff]));
  });

  it("a data: URI gives its bytes, its type and a filename (its own name= when it has one)", () => {
    expect(decodeInlineFile("data:image/png;base64,iVBORw==", "upload")).toEqual({ bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47]), type: "image/png", filename: "upload.png" });
    expect(decodeInlineFile("data:application/pdf;name=report%201.pdf;base64,JVBERg==", "f")).toMatchObject({ type: "application/pdf", filename: "report 1.pdf" });
    expect(decodeInlineFile("data:,a%20b", "note")).toEqual({ bytes: Buffer.from("a b"), type: "text/plain", filename: "note.txt" });
  });

  it("what does not decode is refused with the field's name", () => {
    expect(() => decodeInlineFile("hello world!", "f")).toThrow(new FileValueError('"f" must be base64, a data: URI or an https URL'));
    expect(() => decodeInlineFile("data:image/png;base64,@@@", "f")).toThrow(/"f" is a data: URI whose content is not valid base64/);
  });
});

describe("checking file values without sending them (Probe and Call)", () => {
  it("valid values pass; a bad one and a non-string are located", () => {
    expect(fileValueIssues(["a", "b"], { a: "aGk=", b: ["data:text/plain,hi"] })).toEqual([]);
    expect(fileValueIssues(["a", "b"], { a: 5, b: ["aGk=", "%%"] })).toEqual([
      { path: ["a"], type: "file_invalid", message: '"a" must be a string: base64, a data: URI or an https URL' },
      { path: ["b", 1], type: "file_invalid", message: '"b" must be base64, a data: URI or an https URL' },
    ]);
  });

  it("all of a Call's files together stay within 10 MiB", () => {
    const half = Buffer.alloc(MAX_CALL_FILE_BYTES / 2 + 1).toString("base64");
    expect(fileValueIssues(["a"], { a: half })).toEqual([]);
    expect(fileValueIssues(["a"], { a: [half, half] })).toEqual([
      { path: ["a"], type: "file_too_large", message: `the Call's files are ${MAX_CALL_FILE_BYTES + 2} bytes, more than the ${MAX_CALL_FILE_BYTES} bytes (10 MiB) a Call may send` },
    ]);
  });

  it("an https URL only where the operator allows it; never http; never fetched here", () => {
    expect(fileValueIssues(["a"], { a: "https://files.example/a.png" })).toEqual([expect.objectContaining({ type: "file_url_not_allowed", message: expect.stringContaining("OUTBOUND_FILE_URLS") })]);
    process.env.OUTBOUND_FILE_URLS = "allow";
    // An unresolvable host passes: the check is syntax and scheme only.
    expect(fileValueIssues(["a"], { a: "https://files.invalid/a.png" })).toEqual([]);
    expect(fileValueIssues(["a"], { a: "http://files.example/a.png" })).toEqual([expect.objectContaining({ type: "file_invalid", message: '"a": a file URL must be https (got http)' })]);
  });
});

describe("fetching a file URL at Call time", () => {
  it("goes through the outbound guard: a loopback address is refused, whatever the provider may reach", async () => {
    process.env.OUTBOUND_FILE_URLS = "allow";
    await expect(resolveFile("https://127.0.0.1:9/a.png", "a", { used: 0 }, Date.now() + 2_000)).rejects.toThrow(/the file of "a" \(127\.0\.0\.1:9\) could not be fetched: .*127\.0\.0\.1/);
  });

  it("is refused when the operator does not allow it", async () => {
    await expect(resolveFile("https://files.example/a.png", "a", { used: 0 }, Date.now() + 2_000)).rejects.toThrow(/OUTBOUND_FILE_URLS/);
  });
});

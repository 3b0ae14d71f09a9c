import { describe, expect, it } from "vitest";
import { inferSchema } from "./content-schema";

describe("a result's content_schema", () => {
  it("lists the upstream's keys as they are, those named like object members too", () => {
    const data = JSON.parse('[{"__proto__":{"a":1},"constructor":1},{"__proto__":"x","toString":true}]');
    expect(JSON.stringify(inferSchema(data))).toBe(
      JSON.stringify({
        type: "array",
        items: { type: "object", properties: JSON.parse('{"__proto__":{"type":["object","string"],"properties":{"a":{"type":"integer"}}},"constructor":{"type":"integer"},"toString":{"type":"boolean"}}') },
      }),
    );
  });
});

import { describe, expect, it } from "vitest";
import { toolInputSchema } from "./tool-input-schema";

describe("toolInputSchema", () => {
  it("maps a tool's params to an MCP inputSchema", () => {
    expect(
      toolInputSchema(
        [
          { name: "city", type: "string", required: true, description: "A city", max_length: 80 },
          { name: "units", type: "string", required: false, description: "", enum: ["c", "f"], default: "c" },
          { name: "days", type: "integer", required: false, description: "Days ahead", minimum: 1, maximum: 7 },
          { name: "tags", type: "array", required: false, description: "Labels", items: { type: "string" }, max_length: 5 },
        ],
        [["city"], ["lat", "lon"]],
      ),
    ).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "A city", maxLength: 80 },
        units: { type: "string", enum: ["c", "f"], default: "c" },
        days: { type: "integer", description: "Days ahead", minimum: 1, maximum: 7 },
        tags: { type: "array", description: "Labels", items: { type: "string" }, maxItems: 5 },
      },
      required: ["city"],
      anyOf: [{ required: ["city"] }, { required: ["lat", "lon"] }],
    });
  });

  it("a tool without parameters takes an empty object", () => {
    expect(toolInputSchema([])).toEqual({ type: "object", properties: {} });
  });
});

import { describe, expect, it } from "vitest";
import { spendDays, spendDimOf } from "./spend-rollup";
import { testWindow } from "./testing-history";

describe("spendDimOf", () => {
  it("answers a request naming one dimension, grouped or filtered, and nothing else", () => {
    expect(spendDimOf(["tool"], {})).toBe("tool");
    expect(spendDimOf(["tool"], { providerId: "builtin" })).toBe("tool");
    expect(spendDimOf([], { apiKeyId: "5f0c7c1e-0000-4000-8000-000000000001" })).toBe("api_key");
    expect(spendDimOf(["run_id"], { runId: "run-1" })).toBe("run_id");
    expect(spendDimOf([], {})).toBeUndefined();
  });

  it("leaves two dimensions and filters it does not keep to the events", () => {
    expect(spendDimOf(["tool", "api_key"], {})).toBeNull();
    expect(spendDimOf(["tool"], { chargeOutcome: "charged" })).toBeNull();
    expect(spendDimOf(["tool"], { eventType: "tool_execute" })).toBeNull();
    expect(spendDimOf(["model"], { success: true })).toBeNull();
    expect(spendDimOf([], { toolId: "a", reasonCode: "provider.error" })).toBeNull();
  });
});

describe("spendDays", () => {
  const w = testWindow;

  it("takes the whole UTC days the seal has passed, and leaves the edges and today to the events", () => {
    expect(spendDays(w("2026-08-01T10:30:00.000000Z", "2026-08-09T05:00:00.000000Z", "2026-08-10T11:00:00Z"))).toEqual({
      lo: new Date("2026-08-02T00:00:00Z"),
      hi: new Date("2026-08-09T00:00:00Z"),
    });
    expect(spendDays(w("2026-08-01T00:00:00.000000Z", null, "2026-08-10T11:00:00Z"))).toEqual({ lo: new Date("2026-08-01T00:00:00Z"), hi: new Date("2026-08-10T00:00:00Z") });
    expect(spendDays(w(null, null, "2026-08-10T11:00:00Z"))).toEqual({ lo: null, hi: new Date("2026-08-10T00:00:00Z") });
  });

  it("is null without a whole sealed day in the window", () => {
    expect(spendDays(w("2026-08-10T01:00:00.000000Z", null, "2026-08-10T11:00:00Z"))).toBeNull();
    expect(spendDays(w("2026-08-01T00:00:00.000000Z", null, null))).toBeNull();
    expect(spendDays(w("2026-08-01T10:00:00.000000Z", "2026-08-02T09:00:00.000000Z", "2026-08-10T11:00:00Z"))).toBeNull();
  });
});

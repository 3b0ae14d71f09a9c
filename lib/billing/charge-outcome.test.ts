import { describe, expect, it } from "vitest";
import { deriveChargeOutcome } from "./charge-outcome";

describe("deriveChargeOutcome (contract section 3)", () => {
  it.each([
    [true, "1", "charged"],
    [true, "0.000001", "charged"],
    [true, "0", "included"],
    [false, "0", "failed_not_charged"],
    [false, "0.5", "failed_charged_review"],
  ] as const)("success=%s amount=%s -> %s", (success, amount, expected) => {
    expect(deriveChargeOutcome(success, amount)).toBe(expected);
  });
});

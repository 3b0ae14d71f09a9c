import { describe, expect, it } from "vitest";
import { LoginThrottle } from "./login-throttle";

describe("LoginThrottle", () => {
  it("refuses an email after too many wrong passwords, until the window passes", () => {
    let now = 0;
    const throttle = new LoginThrottle(3, 1000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(throttle.allows("a@example.com")).toBe(true);
      throttle.recordFailure("a@example.com");
    }
    expect(throttle.allows("a@example.com")).toBe(false);
    expect(throttle.allows("b@example.com")).toBe(true);
    now = 1001;
    expect(throttle.allows("a@example.com")).toBe(true);
  });

  it("forgets failures after a successful sign-in", () => {
    const throttle = new LoginThrottle(2, 1000, () => 0);
    throttle.recordFailure("a@example.com");
    throttle.recordFailure("a@example.com");
    throttle.reset("a@example.com");
    expect(throttle.allows("a@example.com")).toBe(true);
  });
});

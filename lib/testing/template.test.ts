import { describe, expect, it } from "vitest";
import { mayDropTestDatabase, testDatabaseName, testRunTag } from "./template";

describe("test database names", () => {
  const hour = 3_600_000;
  const tagAt = (ms: number) => `${ms.toString(36)}beef`;

  it("a run drops its own idle databases, and another run's only once that run is long abandoned", () => {
    const now = Date.now();
    expect(testDatabaseName()).toMatch(new RegExp(`^tollgate_t_${testRunTag()}_[0-9a-f]{10}$`));
    expect(mayDropTestDatabase(testDatabaseName(), now)).toBe(true);
    expect(mayDropTestDatabase(`tollgate_t_${tagAt(now - hour)}_0123456789`, now)).toBe(false);
    expect(mayDropTestDatabase(`tollgate_t_${tagAt(now - 13 * hour)}_0123456789`, now)).toBe(true);
  });

  it("names from before runs were tagged are dropped; other databases never", () => {
    expect(mayDropTestDatabase("tollgate_t_0123456789ab")).toBe(true);
    expect(mayDropTestDatabase("tollgate_tmpl_0123456789abcdef")).toBe(false);
    expect(mayDropTestDatabase("test")).toBe(false);
  });
});

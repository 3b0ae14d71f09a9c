import { describe, expect, it } from "vitest";
import { changeLines, objectName } from "./activity-change";

const iso = (s: string) => `<${s}>`;

describe("an activity entry's before → after", () => {
  it("shows a changed field as before → after and leaves out what stayed the same", () => {
    const entry = { before: { email: "a@example.test", role: "owner" }, after: { email: "a@example.test", role: "member" } };
    expect(changeLines(entry, iso)).toEqual([{ key: "role", before: "owner", after: "member" }]);
    expect(objectName(entry)).toEqual({ field: "email", value: "a@example.test" });
  });

  it("leaves the object's name to the object column unless the name itself changed", () => {
    expect(changeLines({ before: null, after: { name: "ci key", prefix: "tg_abc" } }, iso)).toEqual([{ key: "prefix", after: "tg_abc" }]);
    expect(changeLines({ before: { name: "old" }, after: { name: "new" } }, iso)).toEqual([{ key: "name", before: "old", after: "new" }]);
  });

  it("formats instants, lists and scalars readably", () => {
    const lines = changeLines({ before: { revoked: false }, after: { revoked: true, expires_at: "2026-12-05T08:06:58.163Z", api_keys_to_review: ["k1", "k2"] } }, iso);
    expect(lines).toEqual([
      { key: "revoked", before: "false", after: "true" },
      { key: "expires_at", after: "<2026-12-05T08:06:58.163Z>" },
      { key: "api_keys_to_review", after: "k1, k2" },
    ]);
    expect(changeLines({ before: null, after: 3 }, iso)).toEqual([{ key: "value", after: "3" }]);
    expect(changeLines({ before: null, after: null }, iso)).toEqual([]);
  });
});

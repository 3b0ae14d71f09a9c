import { describe, expect, it } from "vitest";
import { changeLines, objectLabel, objectName, objectTypeLabel, type ChangeContext } from "./activity-change";
import { translator } from "./i18n";

const KEY_ID = "0b5f0a56-1c2d-4e3f-8a9b-0c1d2e3f4a5b";
const en: ChangeContext = { t: translator("en"), locale: "en", formatInstant: (s) => `<${s}>`, keyName: (id) => (id === KEY_ID ? "ci-bot" : undefined) };
const zh: ChangeContext = { ...en, t: translator("zh"), locale: "zh" };

/** The lines as a person reads them: "Label: before → after". */
const read = (lines: ReturnType<typeof changeLines>) => lines.map((l) => `${l.label}: ${l.was !== undefined ? `${l.was} → ` : ""}${l.value}`);

describe("an activity entry's before → after, in words", () => {
  it("shows a changed field by its label, the values in words, and leaves out what stayed the same", () => {
    const entry = { before: { email: "a@example.test", role: "owner" }, after: { email: "a@example.test", role: "member" } };
    expect(read(changeLines(entry, en))).toEqual(["Role: Owner → Member"]);
    expect(changeLines(entry, en)[0].key).toBe("role");
    expect(objectName(entry)).toEqual({ field: "email", value: "a@example.test" });
  });

  it("leaves the object's name to the object column unless the name itself changed", () => {
    expect(read(changeLines({ before: null, after: { name: "ci key", prefix: "tg_abc" } }, en))).toEqual(["Key starts with: tg_abc…"]);
    expect(read(changeLines({ before: { name: "old" }, after: { name: "new" } }, en))).toEqual(["Name: old → new"]);
  });

  it("reads a budget's scope and scope id as one 'Applies to' (a key by its name), never `scope_id: null`, and its limit in credits", () => {
    const account = { scope: "account", scope_id: null, limit_credits: "1", period: "month", time_zone: "Asia/Shanghai" };
    expect(read(changeLines({ before: null, after: account }, en))).toEqual([
      "Applies to: Whole account",
      "Limit: 1 credit",
      "Period: monthly",
      "Time zone: Asia/Shanghai",
    ]);
    const keyBudget = { ...account, scope: "api_key", scope_id: KEY_ID, limit_credits: "2.5" };
    expect(read(changeLines({ before: keyBudget, after: { ...keyBudget, limit_credits: "10" } }, en))).toEqual(["Limit: 2.5 credits → 10 credits"]);
    expect(read(changeLines({ before: null, after: keyBudget }, en))[0]).toBe("Applies to: API key “ci-bot”");
    // A key the page does not know keeps a short id rather than the whole uuid.
    expect(read(changeLines({ before: null, after: { ...keyBudget, scope_id: "9e8d7c6b-0000-4000-8000-123456789abc" } }, en))[0]).toBe("Applies to: API key “…56789abc”");
  });

  it("says none for null, never for an expiry that does not come, yes/no for flags, and names grant types", () => {
    expect(read(changeLines({ before: { low_balance_credits: null, budget_percents: [50, 80] }, after: { low_balance_credits: 100, budget_percents: [50, 80, 100] } }, en))).toEqual([
      "Low balance alert: none → 100 credits",
      "Budget alerts at: 50%, 80% → 50%, 80%, 100%",
    ]);
    expect(read(changeLines({ before: null, after: { amount_credits: "25", type: "welcome_bonus", expires_at: null, balance_after: "125.5" } }, en))).toEqual([
      "Amount: 25 credits",
      "Kind: Welcome bonus",
      "Expires: never",
      "Balance after: 125.5 credits",
    ]);
    expect(read(changeLines({ before: { name: "k", prefix: "tg_1", revoked: false }, after: { revoked: true } }, en))).toEqual(["Key starts with: tg_1…", "Revoked: No → Yes"]);
  });

  it("names the keys a removed member left for review, revoked or kept, and formats instants in the page's zone", () => {
    expect(read(changeLines({ before: { email: "m@example.test", role: "member" }, after: { api_keys_to_review: [KEY_ID] } }, en))).toEqual([
      "Role: Member",
      "API keys to review: ci-bot",
    ]);
    expect(read(changeLines({ before: { email: "m@example.test", role: "member" }, after: { api_keys_revoked: [KEY_ID] } }, en))).toEqual(["Role: Member", "API keys revoked: ci-bot"]);
    expect(read(changeLines({ before: { email: "m@example.test", role: "member" }, after: { api_keys_kept: [] } }, en))).toEqual(["Role: Member", "API keys kept: none"]);
    expect(read(changeLines({ before: { name: "ci-bot", prefix: "tg_1", revoked: false }, after: { revoked: true, reason: "member_removed" } }, en))).toEqual([
      "Key starts with: tg_1…",
      "Revoked: No → Yes",
      "Reason: The member who created it was removed",
    ]);
    expect(read(changeLines({ before: null, after: { email: "x@example.test", role: "member", expires_at: "2026-12-05T08:06:58.163Z" } }, en))).toEqual([
      "Role: Member",
      "Expires: <2026-12-05T08:06:58.163Z>",
    ]);
  });

  it("reads in Chinese as well, with the same plural-free credits", () => {
    expect(read(changeLines({ before: { low_balance_credits: null }, after: { low_balance_credits: 1 } }, zh))).toEqual(["低余额提醒: 无 → 1 积分"]);
    expect(read(changeLines({ before: { role: "owner" }, after: { role: "member" } }, zh))).toEqual([`${translator("zh")("activity.field.role")}: ${translator("zh")("role.owner")} → ${translator("zh")("role.member")}`]);
  });

  it("keeps a scalar entry and an unknown field readable, and shows nothing for an empty entry", () => {
    expect(read(changeLines({ before: null, after: 3 }, en))).toEqual(["Value: 3"]);
    expect(read(changeLines({ before: null, after: { some_new_field: "x" } }, en))).toEqual(["Some new field: x"]);
    expect(changeLines({ before: null, after: null }, en)).toEqual([]);
  });

  it("names an entry's object in words: a budget by what it applies to, a webhook by its URL, its kind translated", () => {
    expect(objectLabel({ object_type: "budget", before: null, after: { scope: "api_key", scope_id: KEY_ID, limit_credits: "5" } }, en)).toBe("API key “ci-bot”");
    expect(objectLabel({ object_type: "webhook_endpoint", before: { url: "https://hooks.example.test/t", events: ["budget.threshold"] }, after: null }, en)).toBe("https://hooks.example.test/t");
    expect(objectLabel({ object_type: "user", before: null, after: { email: "u@example.test" } }, en)).toBe("u@example.test");
    expect(objectLabel({ object_type: "account", before: null, after: { expired_credits: "1" } }, en)).toBeNull();
    expect(objectTypeLabel("alert_settings", en.t)).toBe("Alert settings");
    expect(objectTypeLabel("budget", zh.t)).toBe("预算");
  });
});

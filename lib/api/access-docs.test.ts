import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { OPERATION_ACCESS } from "./access";

/** docs/oauth.md's table of who may call what, as the access table would write it. */
function rows(): string[] {
  const credentials = { api_key: "key", user_token: "user", delegation_token: "delegation" } as const;
  return Object.entries(OPERATION_ACCESS).flatMap(([id, access]) => {
    if (access.kind !== "bearer") return [];
    const scope = access.scopes.length === 0 ? "any" : access.scopes.map((s) => `\`${s}\``).join(" or ");
    const roles = "roles" in access && access.roles ? ` (${access.roles.join(", ")})` : "";
    return [`| \`${id}\` | ${access.accepts.map((c) => credentials[c]).join(", ")} | ${scope}${roles} |`];
  });
}

describe("docs/oauth.md", () => {
  it("states the access table of lib/api/access.ts row for row", () => {
    const doc = fs.readFileSync(path.resolve(__dirname, "../../docs/oauth.md"), "utf8");
    const table = /<!-- access-table[^>]*-->\n\| Operation[^\n]*\n\|[-|]+\|\n([\s\S]*?)<!-- \/access-table -->/.exec(doc);
    expect(table, "the access-table block").not.toBeNull();
    expect(table![1].trim().split("\n")).toEqual(rows());
  });
});

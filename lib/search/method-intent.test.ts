import { describe, expect, it } from "vitest";
import { operationOf, requestIntents, serves } from "./method-intent";

describe("requestIntents", () => {
  it("reads what a request's verbs ask for, in any inflection", () => {
    expect([...requestIntents("Create a fine-tuning job")]).toEqual(["create"]);
    expect([...requestIntents("uploading a file")]).toEqual(["create"]);
    expect([...requestIntents("delete the file")]).toEqual(["remove"]);
    expect([...requestIntents("list my files")]).toEqual(["read"]);
    expect([...requestIntents("updated the playlist's name")]).toEqual(["change"]);
    expect(new Set(requestIntents("find the jobs I created and cancel them"))).toEqual(new Set(["read", "create", "cancel"]));
  });

  it("reads Chinese verbs", () => {
    expect([...requestIntents("创建一个文件夹")]).toEqual(["create"]);
    expect([...requestIntents("删除这个文件")]).toEqual(["remove"]);
    expect([...requestIntents("更新用户信息")]).toEqual(["change"]);
    expect([...requestIntents("获取天气")]).toEqual(["read"]);
  });

  it("asks for nothing when the request has none of those verbs", () => {
    expect(requestIntents("the weather in Paris tomorrow").size).toBe(0);
  });
});

describe("operations", () => {
  it("groups a collection and its items as one resource of one API", () => {
    expect(operationOf("openai", "post", "/chat/completions")).toEqual({ method: "POST", resource: "openai /chat/completions", onItem: false });
    expect(operationOf("openai", "GET", "/chat/completions/{completion_id}")).toEqual({ method: "GET", resource: "openai /chat/completions", onItem: true });
    expect(operationOf("twilio", "POST", "/Accounts/{AccountSid}/Calls/{Sid}.json")).toEqual({ method: "POST", resource: "twilio /Accounts/{AccountSid}/Calls", onItem: true });
    expect(operationOf("x", null, "/files")).toBeNull();
    expect(operationOf("x", "HEAD", "/files")).toBeNull();
  });

  it("serves an intent by the REST convention: create = POST to the collection, change = PUT, PATCH or POST to an item", () => {
    const create = operationOf("a", "POST", "/files")!;
    const modify = operationOf("a", "POST", "/files/{id}")!;
    expect(serves(create, "create")).toBe(true);
    expect(serves(modify, "create")).toBe(false);
    expect(serves(modify, "change")).toBe(true);
    expect(serves(operationOf("a", "PATCH", "/files/{id}")!, "change")).toBe(true);
    expect(serves(operationOf("a", "DELETE", "/files/{id}")!, "remove")).toBe(true);
    expect(serves(operationOf("a", "GET", "/files")!, "read")).toBe(true);
    expect(serves(operationOf("a", "GET", "/files")!, "create")).toBe(false);
  });
});

// What a request asks an HTTP API to do, read from its verbs: "create a chat completion" wants the
// POST of /chat/completions, "delete the file" a DELETE, "list my files" a GET. The operations of
// one resource (`/chat/completions` and `/chat/completions/{id}`: list, create, get, update,
// delete) share their words, so text ranking cannot tell them apart; the method can. Stated once,
// for every catalog and both languages: nothing here is fitted.
import type { httpMethods } from "../catalog/manifest";
import { stem } from "./tokenize";

export type HttpMethod = (typeof httpMethods)[number];

/** What a request asks to do to a resource. */
export type Intent = "create" | "change" | "remove" | "cancel" | "read";

/** An http tool as this stage sees it: its method, its resource, and whether it acts on one item of it. */
export interface Operation {
  method: HttpMethod;
  /** The API and the path without its trailing parameters: `/files` for `/files/{file_id}` and `/files`. */
  resource: string;
  /** The path ends with a parameter (`/files/{file_id}`): it acts on one item, not on the collection. */
  onItem: boolean;
}

const ENGLISH: readonly [readonly string[], Intent][] = [
  [["create", "add", "send", "upload", "post", "submit", "generate", "make", "publish", "invite", "start"], "create"],
  [["update", "set", "change", "modify", "edit", "rename", "replace"], "change"],
  [["delete", "remove", "erase", "revoke", "unfollow", "unsubscribe"], "remove"],
  [["cancel"], "cancel"],
  [["get", "list", "find", "search", "fetch", "retrieve", "show", "read", "view", "look", "check", "download"], "read"],
];

const CHINESE: readonly [readonly string[], Intent][] = [
  [["创建", "新建", "添加", "增加", "发送", "上传", "提交", "发布", "生成"], "create"],
  [["更新", "修改", "设置", "更改", "编辑", "重命名"], "change"],
  [["删除", "移除"], "remove"],
  [["取消", "撤销"], "cancel"],
  [["获取", "查询", "列出", "查找", "查看", "搜索", "检索", "读取", "下载"], "read"],
];

const byStem = new Map<string, Intent>();
for (const [verbs, intent] of ENGLISH) for (const verb of verbs) byStem.set(stem(verb), intent);

/** What the request's verbs ask for (empty when it has none of them: then the method says nothing). */
export function requestIntents(query: string): Set<Intent> {
  const out = new Set<Intent>();
  for (const word of query.toLowerCase().match(/[a-z]+/g) ?? []) {
    const intent = byStem.get(stem(word));
    if (intent) out.add(intent);
  }
  for (const [verbs, intent] of CHINESE) if (verbs.some((v) => query.includes(v))) out.add(intent);
  return out;
}

/**
 * Whether an operation does what an intent asks, by the REST convention: a create is a POST to the
 * collection; a change a PUT or PATCH, or a POST to one item (Twilio, Slack and OpenAI update with
 * a POST); a cancel a DELETE or a POST (to `…/cancel`); a read a GET.
 */
export function serves(op: Operation, intent: Intent): boolean {
  switch (intent) {
    case "create":
      return op.method === "POST" && !op.onItem;
    case "change":
      return op.method === "PUT" || op.method === "PATCH" || (op.method === "POST" && op.onItem);
    case "remove":
      return op.method === "DELETE";
    case "cancel":
      return op.method === "DELETE" || op.method === "POST";
    case "read":
      return op.method === "GET";
  }
}

const PARAMETER = /\{[^}]*\}/;

/** An http tool's operation, null when it is not one (no method or no path). */
export function operationOf(api: string, method: string | null | undefined, path: string | null | undefined): Operation | null {
  const upper = method?.toUpperCase();
  if (!path || (upper !== "GET" && upper !== "POST" && upper !== "PUT" && upper !== "PATCH" && upper !== "DELETE")) return null;
  const segments = path.split("/").filter((s) => s !== "");
  const onItem = segments.length > 0 && PARAMETER.test(segments[segments.length - 1]);
  while (segments.length > 0 && PARAMETER.test(segments[segments.length - 1])) segments.pop();
  return { method: upper, resource: `${api} /${segments.join("/")}`, onItem };
}

import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt } from "./columns";

export const searches = pgTable(
  "searches",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull().references(() => accounts.id),
    apiKeyId: uuid("api_key_id"),
    sessionId: text("session_id"),
    query: text("query").notNull(),
    lang: text("lang").notNull(),
    view: text("view").notNull(),
    resultIds: text("result_ids").array().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [index("searches_account_created_idx").on(t.accountId, t.createdAt.desc()), index("searches_session_idx").on(t.sessionId)],
);

import { pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

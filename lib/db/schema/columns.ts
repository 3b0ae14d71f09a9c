import { numeric, timestamp } from "drizzle-orm/pg-core";

/** Credits are exact decimals with six places (micro-credits); drivers return them as strings. */
export const credits = (name: string) => numeric(name, { precision: 20, scale: 6 });

export const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
export const updatedAt = () => timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();
export const tsz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

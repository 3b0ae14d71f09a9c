DROP TABLE "usage_spend_daily" CASCADE;--> statement-breakpoint
DROP TABLE "usage_spend_hourly" CASCADE;
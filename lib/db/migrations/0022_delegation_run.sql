ALTER TABLE "delegation_spend" ADD COLUMN "run_id" text;--> statement-breakpoint
CREATE INDEX "delegation_spend_account_run_idx" ON "delegation_spend" USING btree ("account_id","run_id") WHERE "delegation_spend"."run_id" IS NOT NULL;--> statement-breakpoint
-- Tokens issued before the column: their run is the one their Calls were made for.
UPDATE "delegation_spend" ds SET "run_id" = x."run_id"
  FROM (SELECT DISTINCT ON ("delegation_jti") "delegation_jti", "run_id" FROM "executions"
         WHERE "delegation_jti" IS NOT NULL AND "run_id" IS NOT NULL ORDER BY "delegation_jti", "created_at") x
 WHERE x."delegation_jti" = ds."jti";

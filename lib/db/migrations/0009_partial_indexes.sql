DROP INDEX "executions_reserved_expiry_idx";--> statement-breakpoint
DROP INDEX "executions_idempotency_uq";--> statement-breakpoint
DROP INDEX "executions_delegation_idx";--> statement-breakpoint
DROP INDEX "usage_search_idx";--> statement-breakpoint
DROP INDEX "usage_ledger_entry_idx";--> statement-breakpoint
CREATE INDEX "executions_reserved_expiry_idx" ON "executions" USING btree ("reservation_expires_at") WHERE "executions"."status" = 'reserved';--> statement-breakpoint
CREATE UNIQUE INDEX "executions_idempotency_uq" ON "executions" USING btree ("account_id","idempotency_key") WHERE "executions"."idempotency_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "executions_delegation_idx" ON "executions" USING btree ("delegation_jti") WHERE "executions"."delegation_jti" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "usage_search_idx" ON "usage_events" USING btree ("search_id") WHERE "usage_events"."search_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "usage_ledger_entry_idx" ON "usage_events" USING btree ("credits_ledger_entry_id") WHERE "usage_events"."credits_ledger_entry_id" IS NOT NULL;
-- Fewer index entries per Call (issue 18): no query reads executions by account and time, and a
-- settled or released execution is found by session through its usage event (every one has
-- exactly one), so only reserved executions (in flight) need the session index. A Call now writes
-- 4 entries in executions' indexes instead of 7 (docs/call.md).
DROP INDEX "executions_account_created_idx";--> statement-breakpoint
DROP INDEX "executions_session_idx";--> statement-breakpoint
CREATE INDEX "executions_reserved_session_idx" ON "executions" USING btree ("session_id") WHERE "executions"."status" = 'reserved';
CREATE TABLE "credit_statements" (
	"account_id" text NOT NULL,
	"month" text NOT NULL,
	"time_zone" text NOT NULL,
	"body" jsonb NOT NULL,
	"content_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_statements_pk" PRIMARY KEY("account_id","month","time_zone")
);
--> statement-breakpoint
CREATE TABLE "usage_spend_daily" (
	"account_id" text NOT NULL,
	"day_start" timestamp with time zone NOT NULL,
	"event_type" text NOT NULL,
	"charge_outcome" text NOT NULL,
	"success" boolean NOT NULL,
	"channel" text NOT NULL,
	"tool_id" text,
	"api_key_id" uuid,
	"oauth_client_id" text,
	"model" text,
	"run_id" text,
	"event_count" bigint NOT NULL,
	"pre_settlement_credits" numeric NOT NULL,
	"settled_credits" numeric NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_spend_hourly" (
	"account_id" text NOT NULL,
	"hour_start" timestamp with time zone NOT NULL,
	"event_type" text NOT NULL,
	"charge_outcome" text NOT NULL,
	"success" boolean NOT NULL,
	"channel" text NOT NULL,
	"tool_id" text,
	"api_key_id" uuid,
	"oauth_client_id" text,
	"model" text,
	"run_id" text,
	"event_count" bigint NOT NULL,
	"pre_settlement_credits" numeric NOT NULL,
	"settled_credits" numeric NOT NULL
);
--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "oauth_client_id" text;--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "oauth_client_id" text;--> statement-breakpoint
CREATE INDEX "usage_spend_daily_account_day_idx" ON "usage_spend_daily" USING btree ("account_id","day_start");--> statement-breakpoint
CREATE INDEX "usage_spend_hourly_account_hour_idx" ON "usage_spend_hourly" USING btree ("account_id","hour_start");--> statement-breakpoint
CREATE INDEX "usage_account_run_idx" ON "usage_events" USING btree ("account_id","run_id","created_at") WHERE "usage_events"."run_id" IS NOT NULL;--> statement-breakpoint
-- Sealed spend rollups and stored statements are immutable, like the other audit aggregates.
CREATE TRIGGER usage_spend_hourly_immutable BEFORE UPDATE OR DELETE ON usage_spend_hourly
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
CREATE TRIGGER usage_spend_daily_immutable BEFORE UPDATE OR DELETE ON usage_spend_daily
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
CREATE TRIGGER credit_statements_immutable BEFORE UPDATE OR DELETE ON credit_statements
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
-- Hours sealed before this migration get their spend rollups now (the seal only writes new hours).
INSERT INTO usage_spend_hourly (account_id, hour_start, event_type, charge_outcome, success, channel, tool_id, api_key_id,
                                oauth_client_id, model, run_id, event_count, pre_settlement_credits, settled_credits)
SELECT e.account_id, date_trunc('hour', e.created_at, 'UTC'), e.event_type, e.charge_outcome, e.success, e.channel, e.tool_id, e.api_key_id,
       e.oauth_client_id, e.model, e.run_id, count(*), sum(e.pre_settlement_amount_credits), sum(e.settled_amount_credits)
  FROM usage_events e JOIN audit_seal_state s ON s.account_id = e.account_id
 WHERE e.created_at >= s.sealed_from AND e.created_at < s.sealed_until
 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;
--> statement-breakpoint
INSERT INTO usage_spend_daily (account_id, day_start, event_type, charge_outcome, success, channel, tool_id, api_key_id,
                               oauth_client_id, model, run_id, event_count, pre_settlement_credits, settled_credits)
SELECT h.account_id, date_trunc('day', h.hour_start, 'UTC'), h.event_type, h.charge_outcome, h.success, h.channel, h.tool_id, h.api_key_id,
       h.oauth_client_id, h.model, h.run_id, sum(h.event_count), sum(h.pre_settlement_credits), sum(h.settled_credits)
  FROM usage_spend_hourly h JOIN audit_seal_state s ON s.account_id = h.account_id
 WHERE h.hour_start < date_trunc('day', s.sealed_until, 'UTC')
 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11;

CREATE TABLE "audit_seal_state" (
	"account_id" text PRIMARY KEY NOT NULL,
	"sealed_from" timestamp with time zone NOT NULL,
	"sealed_until" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_daily_summary" (
	"account_id" text NOT NULL,
	"day" date NOT NULL,
	"entry_count" integer NOT NULL,
	"by_entry_type" jsonb NOT NULL,
	"first_seq" bigint,
	"last_seq" bigint,
	"balance_open" numeric(20, 6),
	"balance_close" numeric(20, 6),
	"events_checked" integer NOT NULL,
	"charged_events" integer NOT NULL,
	"sealed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_daily_summary_pk" PRIMARY KEY("account_id","day")
);
--> statement-breakpoint
CREATE TABLE "ledger_hourly_rollup" (
	"account_id" text NOT NULL,
	"hour_start" timestamp with time zone NOT NULL,
	"entry_type" text NOT NULL,
	"entry_count" bigint NOT NULL,
	"consume_count" bigint NOT NULL,
	"grant_count" bigint NOT NULL,
	"consumed_credits" numeric NOT NULL,
	"granted_credits" numeric NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_daily_rollup" (
	"account_id" text NOT NULL,
	"day_start" timestamp with time zone NOT NULL,
	"event_type" text NOT NULL,
	"charge_outcome" text NOT NULL,
	"success" boolean NOT NULL,
	"billable_success" boolean NOT NULL,
	"reason_code" text,
	"outcome" text,
	"has_execution_outcome" boolean NOT NULL,
	"api_key_id" uuid,
	"billing_snapshot_status" text NOT NULL,
	"event_count" bigint NOT NULL,
	"pre_settlement_credits" numeric NOT NULL,
	"settled_credits" numeric NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_hourly_rollup" (
	"account_id" text NOT NULL,
	"hour_start" timestamp with time zone NOT NULL,
	"event_type" text NOT NULL,
	"charge_outcome" text NOT NULL,
	"success" boolean NOT NULL,
	"billable_success" boolean NOT NULL,
	"reason_code" text,
	"outcome" text,
	"has_execution_outcome" boolean NOT NULL,
	"api_key_id" uuid,
	"billing_snapshot_status" text NOT NULL,
	"event_count" bigint NOT NULL,
	"pre_settlement_credits" numeric NOT NULL,
	"settled_credits" numeric NOT NULL
);
--> statement-breakpoint
DROP INDEX "usage_account_outcome_created_idx";--> statement-breakpoint
DROP INDEX "usage_account_type_created_idx";--> statement-breakpoint
CREATE INDEX "ledger_rollup_account_hour_idx" ON "ledger_hourly_rollup" USING btree ("account_id","hour_start");--> statement-breakpoint
CREATE INDEX "usage_daily_rollup_account_day_idx" ON "usage_daily_rollup" USING btree ("account_id","day_start");--> statement-breakpoint
CREATE INDEX "usage_rollup_account_hour_idx" ON "usage_hourly_rollup" USING btree ("account_id","hour_start");--> statement-breakpoint
CREATE INDEX "ledger_usage_event_idx" ON "credits_ledger" USING btree ("usage_event_id");--> statement-breakpoint
CREATE INDEX "ledger_account_abs_amount_idx" ON "credits_ledger" USING btree ("account_id",abs("amount_credits") DESC,"created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_account_reason_created_idx" ON "usage_events" USING btree ("account_id","reason_code","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_account_key_created_idx" ON "usage_events" USING btree ("account_id","api_key_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_account_amount_idx" ON "usage_events" USING btree ("account_id","actual_amount_credits" DESC NULLS LAST,"created_at" DESC NULLS LAST) WHERE "usage_events"."actual_amount_credits" > 0;--> statement-breakpoint
CREATE INDEX "usage_account_no_snapshot_idx" ON "usage_events" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "usage_events"."event_type" = 'tool_execute' AND "usage_events"."billing_snapshot_status" <> 'captured';--> statement-breakpoint
CREATE INDEX "usage_account_outcome_created_idx" ON "usage_events" USING btree ("account_id","charge_outcome","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_account_type_created_idx" ON "usage_events" USING btree ("account_id","event_type","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);
CREATE TABLE "auto_topups" (
	"account_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"threshold_credits" numeric(20, 6),
	"amount_credits" numeric(20, 6),
	"daily_limit_credits" numeric(20, 6),
	"stripe_customer_id" text,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"card_exp_month" integer,
	"card_exp_year" integer,
	"setup_session_id" text,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"paused_at" timestamp with time zone,
	"last_failure_code" text,
	"last_failure_message" text,
	"last_failure_at" timestamp with time zone,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_topups_settings" CHECK (("auto_topups"."threshold_credits" IS NULL OR "auto_topups"."threshold_credits" >= 0) AND ("auto_topups"."amount_credits" IS NULL OR "auto_topups"."amount_credits" > 0)
          AND ("auto_topups"."daily_limit_credits" IS NULL OR "auto_topups"."daily_limit_credits" >= "auto_topups"."amount_credits")
          AND (NOT "auto_topups"."enabled" OR ("auto_topups"."threshold_credits" IS NOT NULL AND "auto_topups"."amount_credits" IS NOT NULL AND "auto_topups"."daily_limit_credits" IS NOT NULL)))
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "kind" text DEFAULT 'checkout' NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "stripe_payment_method_id" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "failure_code" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "failure_message" text;--> statement-breakpoint
ALTER TABLE "auto_topups" ADD CONSTRAINT "auto_topups_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auto_topups_enabled_idx" ON "auto_topups" USING btree ("account_id") WHERE "auto_topups"."enabled" AND "auto_topups"."paused_at" IS NULL AND "auto_topups"."payment_method_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_auto_topup_in_flight_uq" ON "payments" USING btree ("account_id") WHERE "payments"."kind" = 'auto_topup' AND "payments"."status" = 'pending';
CREATE TABLE "payment_reversals" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"kind" text NOT NULL,
	"stripe_id" text NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"credits" numeric(20, 6) NOT NULL,
	"credits_recovered" numeric(20, 6) DEFAULT '0' NOT NULL,
	"ledger_entry_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_reversals_amounts" CHECK ("payment_reversals"."amount_minor" >= 0 AND "payment_reversals"."credits" >= 0 AND "payment_reversals"."credits_recovered" >= 0 AND "payment_reversals"."credits_recovered" <= "payment_reversals"."credits")
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"credits" numeric(20, 6) NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"stripe_checkout_session_id" text,
	"stripe_payment_intent_id" text,
	"stripe_charge_id" text,
	"checkout_url" text,
	"receipt_url" text,
	"ledger_entry_id" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"succeeded_at" timestamp with time zone,
	CONSTRAINT "payments_amounts_positive" CHECK ("payments"."amount_minor" > 0 AND "payments"."credits" > 0),
	CONSTRAINT "payments_grant_iff_succeeded" CHECK (("payments"."status" = 'succeeded') = ("payments"."ledger_entry_id" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"account_id" text,
	"payment_id" text,
	"outcome" text NOT NULL,
	"detail" text,
	"replays" integer DEFAULT 0 NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_replayed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "payment_reversals" ADD CONSTRAINT "payment_reversals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_reversals" ADD CONSTRAINT "payment_reversals_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payment_reversals_stripe_uq" ON "payment_reversals" USING btree ("stripe_id");--> statement-breakpoint
CREATE INDEX "payment_reversals_payment_idx" ON "payment_reversals" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "payment_reversals_debt_idx" ON "payment_reversals" USING btree ("account_id","created_at") WHERE "payment_reversals"."credits_recovered" < "payment_reversals"."credits";--> statement-breakpoint
CREATE UNIQUE INDEX "payments_checkout_session_uq" ON "payments" USING btree ("stripe_checkout_session_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_payment_intent_uq" ON "payments" USING btree ("stripe_payment_intent_id");--> statement-breakpoint
CREATE INDEX "payments_charge_idx" ON "payments" USING btree ("stripe_charge_id");--> statement-breakpoint
CREATE INDEX "payments_account_created_idx" ON "payments" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "stripe_events_payment_idx" ON "stripe_events" USING btree ("payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_stripe_grant_uq" ON "credits_ledger" USING btree ("source_ref_id") WHERE "credits_ledger"."entry_type" = 'grant_payment_recharge' AND "credits_ledger"."source_system" = 'stripe';--> statement-breakpoint
CREATE INDEX "ledger_stripe_ref_idx" ON "credits_ledger" USING btree ("source_ref_id") WHERE "credits_ledger"."source_system" = 'stripe';
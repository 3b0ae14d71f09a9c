ALTER TABLE "stripe_events" ADD COLUMN "stripe_object_id" text;--> statement-breakpoint
ALTER TABLE "stripe_events" ADD COLUMN "stripe_payment_intent_id" text;--> statement-breakpoint
ALTER TABLE "stripe_events" ADD COLUMN "amount_minor" bigint;--> statement-breakpoint
ALTER TABLE "stripe_events" ADD COLUMN "currency" text;--> statement-breakpoint
ALTER TABLE "stripe_events" ADD COLUMN "credits" numeric(20, 6);--> statement-breakpoint
CREATE INDEX "stripe_events_refused_idx" ON "stripe_events" USING btree ("received_at") WHERE "stripe_events"."outcome" LIKE 'refused\_%';
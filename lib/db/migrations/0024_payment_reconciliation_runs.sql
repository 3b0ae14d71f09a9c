CREATE TABLE "payment_reconciliation_runs" (
	"day" date PRIMARY KEY NOT NULL,
	"claimed_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"attempts" integer DEFAULT 1 NOT NULL,
	"lines" integer,
	"unmatched" integer,
	"notified" integer,
	"error" text
);

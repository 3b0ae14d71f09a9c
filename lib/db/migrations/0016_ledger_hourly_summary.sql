-- The settlement summary of each sealed hour of a UTC day that was still open when it was sealed
-- (lib/audit/seal.ts): readers take them instead of checking the open day's past hours live.
CREATE TABLE "ledger_hourly_summary" (
	"account_id" text NOT NULL,
	"hour_start" timestamp with time zone NOT NULL,
	"entry_count" integer NOT NULL,
	"by_entry_type" jsonb NOT NULL,
	"first_seq" bigint,
	"last_seq" bigint,
	"balance_open" numeric(20, 6),
	"balance_close" numeric(20, 6),
	"events_checked" integer NOT NULL,
	"charged_events" integer NOT NULL,
	"sealed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_hourly_summary_pk" PRIMARY KEY("account_id","hour_start")
);
--> statement-breakpoint
CREATE TRIGGER ledger_hourly_summary_immutable BEFORE UPDATE OR DELETE ON ledger_hourly_summary
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();

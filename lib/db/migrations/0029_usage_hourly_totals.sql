CREATE TABLE "usage_hourly_totals" (
	"account_id" text NOT NULL,
	"hour_start" timestamp with time zone NOT NULL,
	"event_count" bigint NOT NULL,
	"succeeded_count" bigint NOT NULL,
	"charged_count" bigint NOT NULL,
	"included_count" bigint NOT NULL,
	"failed_not_charged_count" bigint NOT NULL,
	"failed_charged_review_count" bigint NOT NULL,
	"pre_settlement_credits" numeric NOT NULL,
	"settled_credits" numeric NOT NULL,
	CONSTRAINT "usage_hourly_totals_pk" PRIMARY KEY("account_id","hour_start")
);
--> statement-breakpoint
-- One definition for the seal (lib/audit/seal.ts) and the backfill below: the account's sealed
-- hours in [p_from, p_to), summed over every dimension of their usage_hourly_rollup rows.
CREATE FUNCTION usage_hourly_totals_fill(p_account text, p_from timestamptz, p_to timestamptz) RETURNS void LANGUAGE sql AS $$
  INSERT INTO usage_hourly_totals (account_id, hour_start, event_count, succeeded_count, charged_count, included_count,
                                   failed_not_charged_count, failed_charged_review_count, pre_settlement_credits, settled_credits)
  SELECT p_account, hour_start, sum(event_count), coalesce(sum(event_count) FILTER (WHERE success), 0),
         coalesce(sum(event_count) FILTER (WHERE charge_outcome = 'charged'), 0), coalesce(sum(event_count) FILTER (WHERE charge_outcome = 'included'), 0),
         coalesce(sum(event_count) FILTER (WHERE charge_outcome = 'failed_not_charged'), 0),
         coalesce(sum(event_count) FILTER (WHERE charge_outcome = 'failed_charged_review'), 0),
         sum(pre_settlement_credits), sum(settled_credits)
    FROM usage_hourly_rollup
   WHERE account_id = p_account AND hour_start >= p_from AND hour_start < p_to
   GROUP BY hour_start
$$;
--> statement-breakpoint
CREATE TRIGGER usage_hourly_totals_immutable BEFORE UPDATE OR DELETE ON usage_hourly_totals
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
-- Hours sealed before this migration get their totals now (the seal only writes the hours it seals).
SELECT usage_hourly_totals_fill(account_id, sealed_from, sealed_until) FROM audit_seal_state;

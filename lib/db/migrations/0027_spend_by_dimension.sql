CREATE TABLE "usage_spend_day" (
	"account_id" text NOT NULL,
	"day_start" timestamp with time zone NOT NULL,
	"dim" text NOT NULL,
	"value" text,
	"event_count" bigint NOT NULL,
	"succeeded_count" bigint NOT NULL,
	"charged_count" bigint NOT NULL,
	"included_count" bigint NOT NULL,
	"failed_not_charged_count" bigint NOT NULL,
	"failed_charged_review_count" bigint NOT NULL,
	"pre_settlement_credits" numeric NOT NULL,
	"settled_credits" numeric NOT NULL,
	"events_before_hour" bigint[] NOT NULL,
	"settled_before_hour" numeric[] NOT NULL
);
--> statement-breakpoint
CREATE INDEX "usage_spend_day_account_dim_day_idx" ON "usage_spend_day" USING btree ("account_id","dim","day_start","value");--> statement-breakpoint
-- The spend rollup's one definition, used by the seal (lib/audit/seal.ts) and by the backfill below:
-- the account's events of the UTC days in [p_from, p_to) (midnights), one row per day, dimension and
-- value (grouping sets: each event counts once per dimension), with the hours inside the day as
-- running sums (element i: the day's hours before hour i, UTC).
CREATE FUNCTION usage_spend_day_fill(p_account text, p_from timestamptz, p_to timestamptz) RETURNS void LANGUAGE sql AS $$
  INSERT INTO usage_spend_day (account_id, day_start, dim, value, event_count, succeeded_count, charged_count, included_count,
                               failed_not_charged_count, failed_charged_review_count, pre_settlement_credits, settled_credits,
                               events_before_hour, settled_before_hour)
  SELECT p_account, date_trunc('day', h.hour, 'UTC'), h.dim, h.value, sum(h.n), sum(h.ok), sum(h.charged), sum(h.included), sum(h.fnc), sum(h.fcr),
         sum(h.pre), sum(h.settled),
         ARRAY[coalesce(sum(h.n) FILTER (WHERE h.hr < 1), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 2), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 3), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 4), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 5), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 6), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 7), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 8), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 9), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 10), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 11), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 12), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 13), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 14), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 15), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 16), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 17), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 18), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 19), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 20), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 21), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 22), 0),
             coalesce(sum(h.n) FILTER (WHERE h.hr < 23), 0)]::bigint[],
         ARRAY[coalesce(sum(h.settled) FILTER (WHERE h.hr < 1), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 2), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 3), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 4), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 5), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 6), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 7), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 8), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 9), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 10), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 11), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 12), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 13), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 14), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 15), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 16), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 17), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 18), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 19), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 20), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 21), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 22), 0),
             coalesce(sum(h.settled) FILTER (WHERE h.hr < 23), 0)]::numeric[]
    FROM (
      SELECT hour, extract(hour FROM hour AT TIME ZONE 'UTC')::int AS hr,
             CASE WHEN grouping(tool_id) = 0 THEN 'tool' WHEN grouping(api_key_id) = 0 THEN 'api_key' WHEN grouping(oauth_client_id) = 0 THEN 'oauth_client'
                  WHEN grouping(model) = 0 THEN 'model' WHEN grouping(run_id) = 0 THEN 'run_id' WHEN grouping(channel) = 0 THEN 'channel'
                  ELSE 'charge_outcome' END AS dim,
             CASE WHEN grouping(tool_id) = 0 THEN tool_id WHEN grouping(api_key_id) = 0 THEN api_key_id::text WHEN grouping(oauth_client_id) = 0 THEN oauth_client_id
                  WHEN grouping(model) = 0 THEN model WHEN grouping(run_id) = 0 THEN run_id WHEN grouping(channel) = 0 THEN channel
                  ELSE charge_outcome END AS value,
             count(*) AS n, count(*) FILTER (WHERE success) AS ok,
             count(*) FILTER (WHERE charge_outcome = 'charged') AS charged, count(*) FILTER (WHERE charge_outcome = 'included') AS included,
             count(*) FILTER (WHERE charge_outcome = 'failed_not_charged') AS fnc, count(*) FILTER (WHERE charge_outcome = 'failed_charged_review') AS fcr,
             sum(pre_settlement_amount_credits) AS pre, sum(settled_amount_credits) AS settled
        FROM (SELECT date_trunc('hour', created_at, 'UTC') AS hour, * FROM usage_events
               WHERE account_id = p_account AND created_at >= p_from AND created_at < p_to) e
       GROUP BY GROUPING SETS ((hour, tool_id), (hour, api_key_id), (hour, oauth_client_id), (hour, model), (hour, run_id), (hour, channel), (hour, charge_outcome))
    ) h
   GROUP BY 2, 3, 4
$$;
--> statement-breakpoint
CREATE TRIGGER usage_spend_day_immutable BEFORE UPDATE OR DELETE ON usage_spend_day
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
-- Days sealed before this migration get their rows now (the seal only writes days it completes).
SELECT usage_spend_day_fill(account_id, date_trunc('day', sealed_from, 'UTC'), date_trunc('day', sealed_until, 'UTC'))
  FROM audit_seal_state WHERE date_trunc('day', sealed_from, 'UTC') < date_trunc('day', sealed_until, 'UTC');

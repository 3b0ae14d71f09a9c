-- usage_events becomes a table partitioned by month of created_at (docs/scaling.md), and keeps only
-- the indexes a query the product runs needs (docs/audit.md, "Indexes"):
--
-- * every audit read bounds created_at (a window, the feed's keyset, the seal's hours) or probes an
--   id index, so the planner reads only the months in the window; closed months are never written
--   again, can be frozen, moved or detached;
-- * the primary key becomes (id, created_at): a partitioned table's unique indexes must hold the
--   partition key. Ids are UUIDv7, unique by construction; nothing references usage_events by key;
-- * dropped: the composite (account_id, charge_outcome | event_type | reason_code | api_key_id,
--   created_at, id) indexes. Their filters are answered by the list index walked newest first, which
--   the rollups bound to the hours that hold a match (lib/audit/usage-history.ts); the rare charge
--   outcome support works through (failed_charged_review) keeps a small partial index;
-- * execution_id and session_id are indexed only where present (searches have no execution).
--
-- This migration copies an existing table in one transaction: right for a new or small install. At
-- hundreds of millions of rows, partition online instead (docs/scaling.md): attach the old table as
-- the partition of its past and let new months start empty.
ALTER TABLE "usage_events" RENAME TO "usage_events_unpartitioned";
--> statement-breakpoint
ALTER TABLE "usage_events_unpartitioned" RENAME CONSTRAINT "usage_events_pkey" TO "usage_events_unpartitioned_pkey";
--> statement-breakpoint
DROP INDEX IF EXISTS "usage_account_created_idx", "usage_account_outcome_created_idx", "usage_account_type_created_idx",
  "usage_account_reason_created_idx", "usage_account_key_created_idx", "usage_account_amount_idx", "usage_account_no_snapshot_idx",
  "usage_execution_idx", "usage_search_idx", "usage_session_idx", "usage_ledger_entry_idx";
--> statement-breakpoint
CREATE TABLE "usage_events" (LIKE "usage_events_unpartitioned" INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE ("created_at");
--> statement-breakpoint
-- Rows whose month has no partition yet land here; partitions are created months ahead (below and by
-- the sweeper), so it stays empty, and a month created later takes its rows out of it.
CREATE TABLE "usage_events_default" PARTITION OF "usage_events" DEFAULT;
--> statement-breakpoint
-- Creates the monthly partitions (UTC months) covering [from_ts, to_ts) that do not exist yet; returns
-- how many it created. Rows of such a month already in the default partition move into the new one.
-- Concurrent callers serialise on an advisory lock.
CREATE OR REPLACE FUNCTION usage_events_ensure_partitions(from_ts timestamptz, to_ts timestamptz) RETURNS int
  LANGUAGE plpgsql AS $$
DECLARE
  m timestamp := date_trunc('month', from_ts AT TIME ZONE 'UTC');
  lo timestamptz;
  hi timestamptz;
  part text;
  created int := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(7201315);
  WHILE (m AT TIME ZONE 'UTC') < to_ts LOOP
    lo := m AT TIME ZONE 'UTC';
    hi := (m + interval '1 month') AT TIME ZONE 'UTC';
    part := 'usage_events_' || to_char(m, 'YYYY_MM');
    IF to_regclass(part) IS NULL THEN
      IF EXISTS (SELECT 1 FROM usage_events_default WHERE created_at >= lo AND created_at < hi) THEN
        EXECUTE format('CREATE TABLE %I (LIKE usage_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
        EXECUTE format('WITH moved AS (DELETE FROM usage_events_default WHERE created_at >= %L AND created_at < %L RETURNING *)
                        INSERT INTO %I SELECT * FROM moved', lo, hi, part);
        EXECUTE format('ALTER TABLE usage_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
      ELSE
        EXECUTE format('CREATE TABLE %I PARTITION OF usage_events FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
      END IF;
      created := created + 1;
    END IF;
    m := m + interval '1 month';
  END LOOP;
  RETURN created;
END
$$;
--> statement-breakpoint
SELECT usage_events_ensure_partitions(coalesce((SELECT min(created_at) FROM usage_events_unpartitioned), now()), now() + interval '3 months');
--> statement-breakpoint
INSERT INTO "usage_events" SELECT * FROM "usage_events_unpartitioned";
--> statement-breakpoint
DROP TABLE "usage_events_unpartitioned";
--> statement-breakpoint
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_pkey" PRIMARY KEY ("id", "created_at");
--> statement-breakpoint
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "usage_account_created_idx" ON "usage_events" USING btree ("account_id", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST);
--> statement-breakpoint
CREATE INDEX "usage_account_review_idx" ON "usage_events" USING btree ("account_id", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE "charge_outcome" = 'failed_charged_review';
--> statement-breakpoint
CREATE INDEX "usage_account_amount_idx" ON "usage_events" USING btree ("account_id", "actual_amount_credits" DESC NULLS LAST, "created_at" DESC NULLS LAST) WHERE "actual_amount_credits" > 0;
--> statement-breakpoint
CREATE INDEX "usage_account_no_snapshot_idx" ON "usage_events" USING btree ("account_id", "created_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE "event_type" = 'tool_execute' AND "billing_snapshot_status" <> 'captured';
--> statement-breakpoint
CREATE INDEX "usage_execution_idx" ON "usage_events" USING btree ("execution_id") WHERE "execution_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "usage_search_idx" ON "usage_events" USING btree ("search_id") WHERE "search_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "usage_session_idx" ON "usage_events" USING btree ("session_id") WHERE "session_id" IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "usage_ledger_entry_idx" ON "usage_events" USING btree ("credits_ledger_entry_id") WHERE "credits_ledger_entry_id" IS NOT NULL;
--> statement-breakpoint
ANALYZE "usage_events";

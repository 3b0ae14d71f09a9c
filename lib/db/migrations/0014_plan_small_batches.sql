-- The money path's statements take their batch as one JSON array. jsonb_array_elements is
-- estimated at 100 rows, so a statement's generic plan (kept per connection) joined the batch to
-- credit_balances and budgets by hash over a sequential scan of the whole table: its cost grew
-- with the number of accounts and budgets. A batch holds 1 to 64 jobs, usually a few: this
-- function says so (ROWS 4; plpgsql, so the planner does not inline it and lose the estimate),
-- and the plans probe the primary keys and indexes instead.
CREATE OR REPLACE FUNCTION tg_jobs(batch jsonb) RETURNS TABLE (i int, job jsonb)
  LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 4 AS $$
BEGIN
  RETURN QUERY SELECT j.ord::int, j.value FROM jsonb_array_elements(batch) WITH ORDINALITY AS j(value, ord);
END
$$;

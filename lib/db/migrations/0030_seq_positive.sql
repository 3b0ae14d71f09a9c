-- Ledger and activity rows are numbered above zero (issue 58): the ledger's seq comes from its
-- sequence (from 1), the activity log's from the account's last entry + 1, so a row at 0 or below
-- was written around them. A database that already holds such rows keeps them (both logs are
-- append-only, and they are evidence): the constraint is then added NOT VALID, which still refuses
-- every new such row, a WARNING names the table, and `audit verify` names each row (seq_positive).
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['credits_ledger', 'account_activity'] LOOP
    BEGIN
      EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I.seq > 0)', t, t || '_seq_positive', t);
    EXCEPTION WHEN check_violation THEN
      EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (%I.seq > 0) NOT VALID', t, t || '_seq_positive', t);
      RAISE WARNING '% holds rows numbered 0 or below, written around the database''s numbering: kept, and named by audit verify (seq_positive); new ones are refused', t;
    END;
  END LOOP;
END $$;

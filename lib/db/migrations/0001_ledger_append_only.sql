-- The credits ledger is append-only: the database itself rejects any change to a written row.
CREATE OR REPLACE FUNCTION credits_ledger_reject_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'credits_ledger is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER credits_ledger_no_update_delete
  BEFORE UPDATE OR DELETE ON credits_ledger
  FOR EACH ROW EXECUTE FUNCTION credits_ledger_reject_change();
--> statement-breakpoint
CREATE TRIGGER credits_ledger_no_truncate
  BEFORE TRUNCATE ON credits_ledger
  FOR EACH STATEMENT EXECUTE FUNCTION credits_ledger_reject_change();
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;

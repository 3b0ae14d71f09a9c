-- Sealed audit aggregates are immutable: a bucket is written once, when it can no longer change.
CREATE OR REPLACE FUNCTION audit_rollup_reject_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION '% is immutable: % is not allowed', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER usage_hourly_rollup_immutable BEFORE UPDATE OR DELETE ON usage_hourly_rollup
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
CREATE TRIGGER ledger_hourly_rollup_immutable BEFORE UPDATE OR DELETE ON ledger_hourly_rollup
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
CREATE TRIGGER ledger_daily_summary_immutable BEFORE UPDATE OR DELETE ON ledger_daily_summary
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
CREATE TRIGGER usage_daily_rollup_immutable BEFORE UPDATE OR DELETE ON usage_daily_rollup
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();

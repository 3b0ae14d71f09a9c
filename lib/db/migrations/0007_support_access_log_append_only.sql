-- The support access log is evidence of who read which account: written once, never changed.
CREATE TRIGGER support_access_log_immutable BEFORE UPDATE OR DELETE ON support_access_log
  FOR EACH ROW EXECUTE FUNCTION audit_rollup_reject_change();
--> statement-breakpoint
CREATE TRIGGER support_access_log_no_truncate BEFORE TRUNCATE ON support_access_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_rollup_reject_change();

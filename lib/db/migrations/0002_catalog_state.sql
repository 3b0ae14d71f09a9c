CREATE TABLE "catalog_state" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "catalog_state_single_row" CHECK ("catalog_state"."id" = 1)
);
--> statement-breakpoint
INSERT INTO "catalog_state" ("id", "version") VALUES (1, 0);
--> statement-breakpoint
-- Statement-level, so a bulk import bumps the version once per statement, not once per row; the
-- row update is transactional, so the new version becomes visible exactly with the data.
CREATE OR REPLACE FUNCTION catalog_state_bump() RETURNS trigger AS $$
BEGIN
  UPDATE catalog_state SET version = version + 1, updated_at = now() WHERE id = 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER tools_bump_catalog_version
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tools
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_state_bump();
--> statement-breakpoint
CREATE TRIGGER providers_bump_catalog_version
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON providers
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_state_bump();

CREATE TABLE "stored_results" (
	"execution_id" text PRIMARY KEY NOT NULL,
	"content" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stored_results_expiry_idx" ON "stored_results" USING btree ("expires_at");
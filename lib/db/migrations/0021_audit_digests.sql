CREATE TABLE "audit_digest_heads" (
	"account_id" text NOT NULL,
	"log" text NOT NULL,
	"last_seq" bigint NOT NULL,
	"head" text NOT NULL,
	"digest_number" integer NOT NULL,
	CONSTRAINT "audit_digest_heads_pk" PRIMARY KEY("account_id","log")
);
--> statement-breakpoint
CREATE TABLE "audit_digest_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL,
	"last_name" text NOT NULL,
	"last_sha256" text NOT NULL,
	"last_created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "connection_states" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"shared" boolean DEFAULT false NOT NULL,
	"scopes" text[] DEFAULT '{}' NOT NULL,
	"code_verifier" text NOT NULL,
	"return_to" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text,
	"provider_id" text NOT NULL,
	"kind" text NOT NULL,
	"scopes" text[] DEFAULT '{}' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"status_reason" text,
	"access_token" text,
	"refresh_token" text,
	"expires_at" timestamp with time zone,
	"token_version" integer DEFAULT 0 NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"last_refreshed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "provider_oauth_apps" (
	"provider_id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"client_secret" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "region" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "connection_sharing" text DEFAULT 'owners' NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "connection" jsonb;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "regions" text[];--> statement-breakpoint
ALTER TABLE "tools" ADD COLUMN "regions" text[];--> statement-breakpoint
ALTER TABLE "connection_states" ADD CONSTRAINT "connection_states_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connection_states" ADD CONSTRAINT "connection_states_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provider_oauth_apps" ADD CONSTRAINT "provider_oauth_apps_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "connection_states_expiry_idx" ON "connection_states" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_owner_uq" ON "connections" USING btree ("account_id","provider_id",coalesce("user_id", ''));--> statement-breakpoint
CREATE INDEX "connections_user_idx" ON "connections" USING btree ("user_id");
CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text DEFAULT 'owner' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_balances" (
	"account_id" text PRIMARY KEY NOT NULL,
	"paid_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"bonus_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"reward_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"reserved_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_balances_kinds_nonneg" CHECK ("credit_balances"."paid_credits" >= 0 AND "credit_balances"."bonus_credits" >= 0 AND "credit_balances"."reward_credits" >= 0),
	CONSTRAINT "credit_balances_reserved_ok" CHECK ("credit_balances"."reserved_credits" >= 0 AND "credit_balances"."reserved_credits" <= "credit_balances"."paid_credits" + "credit_balances"."bonus_credits" + "credit_balances"."reward_credits")
);
--> statement-breakpoint
CREATE TABLE "credits_ledger" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"account_id" text NOT NULL,
	"entry_type" text NOT NULL,
	"amount_credits" numeric(20, 6) NOT NULL,
	"source_system" text NOT NULL,
	"source_ref_type" text,
	"source_ref_id" text,
	"execution_id" text,
	"usage_event_id" uuid,
	"api_key_id" uuid,
	"pre_settlement_bill" jsonb,
	"settlement_result" jsonb,
	"balance_before" numeric(20, 6) NOT NULL,
	"balance_after" numeric(20, 6) NOT NULL,
	"ledger_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"description" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "providers" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"i18n" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"categories" text[] DEFAULT '{}' NOT NULL,
	"transport" text NOT NULL,
	"base_url" text,
	"auth" jsonb,
	"allow_private_network" boolean DEFAULT false NOT NULL,
	"source" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tools" (
	"id" text PRIMARY KEY NOT NULL,
	"provider_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"lang" text DEFAULT 'en' NOT NULL,
	"i18n" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"category" text,
	"params" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"one_of_required" jsonb,
	"examples" jsonb,
	"expected_cost" text,
	"billing_rule" jsonb,
	"success_rate" real,
	"avg_execution_time_ms" real,
	"status" text DEFAULT 'active' NOT NULL,
	"execution" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"timeout_ms" integer DEFAULT 10000 NOT NULL,
	"cacheable" boolean DEFAULT false NOT NULL,
	"cache_ttl_seconds" integer DEFAULT 0 NOT NULL,
	"source" text,
	"search_text" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "searches" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"api_key_id" uuid,
	"session_id" text,
	"query" text NOT NULL,
	"lang" text NOT NULL,
	"view" text NOT NULL,
	"result_ids" text[] DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delegation_spend" (
	"jti" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"max_credits" numeric(20, 6) NOT NULL,
	"reserved_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"spent_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "executions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"api_key_id" uuid,
	"delegation_jti" text,
	"tool_id" text NOT NULL,
	"provider_id" text,
	"search_id" text,
	"session_id" text NOT NULL,
	"model" text,
	"run_id" text,
	"status" text NOT NULL,
	"reserved_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"reservation_expires_at" timestamp with time zone,
	"parameters" jsonb,
	"success" boolean,
	"reason_code" text,
	"charge_outcome" text,
	"settled_credits" numeric(20, 6),
	"cache_hit" boolean DEFAULT false NOT NULL,
	"duration_ms" integer,
	"idempotency_key" text,
	"request_hash" text,
	"response" jsonb,
	"response_status" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"api_key_id" uuid,
	"user_id" text,
	"event_type" text NOT NULL,
	"source_system" text NOT NULL,
	"source_ref_type" text,
	"source_ref_id" text,
	"session_id" text,
	"search_id" text,
	"execution_id" text,
	"tool_id" text,
	"success" boolean NOT NULL,
	"billable_success" boolean NOT NULL,
	"charge_outcome" text NOT NULL,
	"reason_code" text,
	"error_message" text,
	"duration_ms" integer,
	"billing_snapshot_status" text NOT NULL,
	"billing_rule_snapshot" jsonb,
	"pre_settlement_bill" jsonb,
	"settlement_result" jsonb,
	"pre_settlement_amount_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"settled_amount_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"requested_amount_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"actual_amount_credits" numeric(20, 6) DEFAULT '0' NOT NULL,
	"execution_outcome" jsonb,
	"outcome" text,
	"credits_ledger_entry_id" text,
	"display_target" text,
	"billing_summary" text,
	"request_payload" jsonb,
	"response_payload_summary" jsonb,
	"cache_hit" boolean DEFAULT false NOT NULL,
	"model" text,
	"run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_authorization_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"account_id" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"scope" text NOT NULL,
	"resource" text,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"secret_hash" text,
	"redirect_uris" text[] DEFAULT '{}' NOT NULL,
	"grant_types" text[] DEFAULT '{}' NOT NULL,
	"resources" text[] DEFAULT '{}' NOT NULL,
	"is_agent_runtime" boolean DEFAULT false NOT NULL,
	"is_resource_server" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_device_codes" (
	"device_code_hash" text PRIMARY KEY NOT NULL,
	"user_code" text NOT NULL,
	"client_id" text NOT NULL,
	"scope" text NOT NULL,
	"resource" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"user_id" text,
	"account_id" text,
	"interval_seconds" integer DEFAULT 5 NOT NULL,
	"last_polled_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_refresh_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"family_id" text NOT NULL,
	"client_id" text NOT NULL,
	"user_id" text NOT NULL,
	"account_id" text NOT NULL,
	"scope" text NOT NULL,
	"resource" text,
	"rotated_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "revoked_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"alg" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_jwk" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "support_access_log" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"target_account_id" text,
	"resource" text NOT NULL,
	"query" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_balances" ADD CONSTRAINT "credit_balances_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credits_ledger" ADD CONSTRAINT "credits_ledger_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tools" ADD CONSTRAINT "tools_provider_id_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."providers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "searches" ADD CONSTRAINT "searches_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_uq" ON "users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "users_account_idx" ON "users" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_uq" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "ledger_account_created_idx" ON "credits_ledger" USING btree ("account_id","created_at" DESC NULLS LAST,"seq" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ledger_account_seq_idx" ON "credits_ledger" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "ledger_account_type_created_idx" ON "credits_ledger" USING btree ("account_id","entry_type","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ledger_execution_idx" ON "credits_ledger" USING btree ("execution_id");--> statement-breakpoint
CREATE INDEX "providers_source_idx" ON "providers" USING btree ("source");--> statement-breakpoint
CREATE INDEX "tools_provider_idx" ON "tools" USING btree ("provider_id");--> statement-breakpoint
CREATE INDEX "tools_source_status_idx" ON "tools" USING btree ("source","status");--> statement-breakpoint
CREATE INDEX "searches_account_created_idx" ON "searches" USING btree ("account_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "searches_session_idx" ON "searches" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "executions_account_created_idx" ON "executions" USING btree ("account_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "executions_reserved_expiry_idx" ON "executions" USING btree ("reservation_expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "executions_idempotency_uq" ON "executions" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "executions_session_idx" ON "executions" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "executions_delegation_idx" ON "executions" USING btree ("delegation_jti");--> statement-breakpoint
CREATE INDEX "usage_account_created_idx" ON "usage_events" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_account_outcome_created_idx" ON "usage_events" USING btree ("account_id","charge_outcome","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_account_type_created_idx" ON "usage_events" USING btree ("account_id","event_type","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "usage_execution_idx" ON "usage_events" USING btree ("execution_id");--> statement-breakpoint
CREATE INDEX "usage_search_idx" ON "usage_events" USING btree ("search_id");--> statement-breakpoint
CREATE INDEX "usage_session_idx" ON "usage_events" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "usage_ledger_entry_idx" ON "usage_events" USING btree ("credits_ledger_entry_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_device_user_code_uq" ON "oauth_device_codes" USING btree ("user_code");--> statement-breakpoint
CREATE INDEX "oauth_refresh_family_idx" ON "oauth_refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "support_access_user_idx" ON "support_access_log" USING btree ("user_id","created_at");
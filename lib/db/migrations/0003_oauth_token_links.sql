ALTER TABLE "oauth_authorization_codes" ADD COLUMN "access_token_jti" text;--> statement-breakpoint
ALTER TABLE "oauth_authorization_codes" ADD COLUMN "access_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "oauth_authorization_codes" ADD COLUMN "refresh_family_id" text;--> statement-breakpoint
ALTER TABLE "oauth_refresh_tokens" ADD COLUMN "access_token_jti" text;--> statement-breakpoint
ALTER TABLE "oauth_refresh_tokens" ADD COLUMN "access_expires_at" timestamp with time zone;
ALTER TABLE "channel_accounts" ADD COLUMN "paused_until" bigint;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "file_state" text;
DROP INDEX "tickets_status_updated_idx";--> statement-breakpoint
DROP INDEX "tickets_updated_idx";--> statement-breakpoint
ALTER TABLE "participants" ADD COLUMN "unread" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "participants" ADD COLUMN "kind" text DEFAULT 'ticket' NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "kind" text DEFAULT 'ticket' NOT NULL;--> statement-breakpoint
CREATE INDEX "participants_user_unread_kind_idx" ON "participants" USING btree ("user_id","unread","kind");--> statement-breakpoint
CREATE INDEX "tickets_kind_status_updated_idx" ON "tickets" USING btree ("kind","status","updated_at");--> statement-breakpoint
CREATE INDEX "tickets_kind_updated_idx" ON "tickets" USING btree ("kind","updated_at");--> statement-breakpoint
-- backfill: the kind of existing conversations (and of their participants), unread flags from read times
UPDATE "tickets" SET "kind" = CASE WHEN "channel" = 'chat' THEN 'chat' WHEN "channel" = 'CALL' THEN 'call' ELSE 'livechat' END WHERE "channel" IN ('chat', 'CALL', 'LIVECHAT', 'LIVECHAT2');--> statement-breakpoint
UPDATE "participants" SET "kind" = t."kind", "unread" = "participants"."last_read_at" < t."updated_at" FROM "tickets" t WHERE t."id" = "participants"."ticket_id";

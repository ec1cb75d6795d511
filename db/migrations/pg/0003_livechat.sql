CREATE TABLE "livechat_sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "livechat_visits" (
	"token" text PRIMARY KEY NOT NULL,
	"widget_key" text NOT NULL,
	"ticket_id" integer,
	"state" text DEFAULT 'new' NOT NULL,
	"queued_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "session_id" integer;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "rating" integer;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "rating_reason" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "livechat_visits" ADD CONSTRAINT "livechat_visits_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "livechat_sessions_email_idx" ON "livechat_sessions" USING btree ("email");--> statement-breakpoint
CREATE INDEX "livechat_visits_state_queued_idx" ON "livechat_visits" USING btree ("state","queued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "livechat_visits_ticket_idx" ON "livechat_visits" USING btree ("ticket_id");--> statement-breakpoint
CREATE INDEX "tickets_session_idx" ON "tickets" USING btree ("session_id");
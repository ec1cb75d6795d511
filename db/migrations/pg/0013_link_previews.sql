CREATE TABLE "conversation_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"action" text NOT NULL,
	"ticket_id" integer NOT NULL,
	"ref_id" integer,
	"session_id" integer,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "link_previews" (
	"url_hash" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"state" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"image" text DEFAULT '' NOT NULL,
	"fetched_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversation_events" ADD CONSTRAINT "conversation_events_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_events_ticket_idx" ON "conversation_events" USING btree ("ticket_id");--> statement-breakpoint
CREATE INDEX "link_previews_fetched_idx" ON "link_previews" USING btree ("fetched_at");
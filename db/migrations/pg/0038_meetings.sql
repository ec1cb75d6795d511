CREATE TABLE "meeting_invites" (
	"id" serial PRIMARY KEY NOT NULL,
	"meeting_id" integer NOT NULL,
	"user_id" integer,
	"name" text DEFAULT '' NOT NULL,
	"key_hash" text,
	"bound_hash" text,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meetings" (
	"id" serial PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"ticket_id" integer,
	"host_user_id" integer NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"attendees" text DEFAULT '[]' NOT NULL,
	"started_at" bigint NOT NULL,
	"ended_at" bigint
);
--> statement-breakpoint
ALTER TABLE "meeting_invites" ADD CONSTRAINT "meeting_invites_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meeting_invites" ADD CONSTRAINT "meeting_invites_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_host_user_id_users_id_fk" FOREIGN KEY ("host_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "meeting_invites_meeting_idx" ON "meeting_invites" USING btree ("meeting_id");--> statement-breakpoint
CREATE UNIQUE INDEX "meeting_invites_key_idx" ON "meeting_invites" USING btree ("key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "meetings_token_idx" ON "meetings" USING btree ("token");--> statement-breakpoint
CREATE INDEX "meetings_ticket_idx" ON "meetings" USING btree ("ticket_id");
CREATE TABLE "calls" (
	"id" serial PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"sip_call_id" text NOT NULL,
	"direction" text NOT NULL,
	"did" text DEFAULT '' NOT NULL,
	"from_number" text NOT NULL,
	"to_number" text NOT NULL,
	"agent_user_id" integer,
	"state" text DEFAULT 'ringing' NOT NULL,
	"started_at" bigint NOT NULL,
	"answered_at" bigint,
	"held_at" bigint,
	"hold_ms" integer DEFAULT 0 NOT NULL,
	"ended_at" bigint,
	"acw_ms" integer,
	"hangup_cause" text DEFAULT '' NOT NULL,
	"hangup_by" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_agent_user_id_users_id_fk" FOREIGN KEY ("agent_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "calls_sip_call_id_idx" ON "calls" USING btree ("sip_call_id");--> statement-breakpoint
CREATE INDEX "calls_ticket_idx" ON "calls" USING btree ("ticket_id");--> statement-breakpoint
CREATE INDEX "calls_state_idx" ON "calls" USING btree ("state");
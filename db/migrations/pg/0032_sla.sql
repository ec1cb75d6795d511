CREATE TABLE "sla_alerts" (
	"id" serial PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"due_at" bigint NOT NULL,
	"counted" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sla_policies" (
	"id" serial PRIMARY KEY NOT NULL,
	"label_id" integer NOT NULL,
	"priority" text DEFAULT '' NOT NULL,
	"first_response_minutes" integer,
	"next_response_minutes" integer,
	"resolution_minutes" integer,
	"warn_minutes" integer DEFAULT 15 NOT NULL,
	"pause_on_pending" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sla_tickets" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"label_id" integer,
	"first_due_at" bigint,
	"next_due_at" bigint,
	"resolution_due_at" bigint,
	"due_at" bigint,
	"due_target" text,
	"warn_at" bigint,
	"warn_minutes" integer DEFAULT 15 NOT NULL,
	"next_check_at" bigint,
	"state" text DEFAULT 'none' NOT NULL,
	"outcome" text,
	"breached_at" bigint,
	"seen_updated_at" bigint NOT NULL,
	"computed_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sla_alerts" ADD CONSTRAINT "sla_alerts_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_policies" ADD CONSTRAINT "sla_policies_label_id_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."labels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sla_tickets" ADD CONSTRAINT "sla_tickets_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sla_alerts_once_idx" ON "sla_alerts" USING btree ("ticket_id","kind","target","due_at");--> statement-breakpoint
CREATE INDEX "sla_alerts_created_idx" ON "sla_alerts" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sla_policies_label_priority_idx" ON "sla_policies" USING btree ("label_id","priority");--> statement-breakpoint
CREATE INDEX "sla_tickets_next_check_idx" ON "sla_tickets" USING btree ("next_check_at");--> statement-breakpoint
CREATE INDEX "sla_tickets_state_idx" ON "sla_tickets" USING btree ("state");
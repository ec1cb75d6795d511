CREATE TABLE "report_facts" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"channel" text NOT NULL,
	"status" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"first_response_at" bigint,
	"resolved_at" bigint,
	"sla_minutes" integer,
	"rating" integer
);
--> statement-breakpoint
CREATE TABLE "report_rollup" (
	"dim" text NOT NULL,
	"kind" text NOT NULL,
	"at" bigint NOT NULL,
	"key" text NOT NULL,
	"n" integer NOT NULL,
	"sum_ms" bigint NOT NULL,
	"n_ms" integer NOT NULL,
	CONSTRAINT "report_rollup_dim_kind_at_key_pk" PRIMARY KEY("dim","kind","at","key")
);
--> statement-breakpoint
ALTER TABLE "report_facts" ADD CONSTRAINT "report_facts_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "report_facts_range_idx" ON "report_facts" USING btree ("created_at","kind","channel","status","sla_minutes","first_response_at","resolved_at","rating");--> statement-breakpoint
CREATE INDEX "report_facts_kind_updated_idx" ON "report_facts" USING btree ("kind","updated_at","ticket_id");--> statement-breakpoint
CREATE INDEX "report_facts_kind_status_created_idx" ON "report_facts" USING btree ("kind","status","created_at");
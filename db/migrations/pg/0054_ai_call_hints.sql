CREATE TABLE "ai_call_hints" (
	"call_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"kind" text NOT NULL,
	"evidence" text NOT NULL,
	"hint_values" text DEFAULT '{}' NOT NULL,
	"confidence" integer NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "ai_call_hints_call_id_kind_evidence_pk" PRIMARY KEY("call_id","kind","evidence")
);
--> statement-breakpoint
ALTER TABLE "ai_call_hints" ADD CONSTRAINT "ai_call_hints_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_call_hints" ADD CONSTRAINT "ai_call_hints_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_call_hints_kind_idx" ON "ai_call_hints" USING btree ("kind","call_id");
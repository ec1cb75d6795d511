CREATE TABLE "ai_message_analysis" (
	"message_id" integer PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"from_customer" boolean NOT NULL,
	"language" text DEFAULT '' NOT NULL,
	"emotion" text DEFAULT '' NOT NULL,
	"confidence" integer DEFAULT 0 NOT NULL,
	"emotions" text DEFAULT '{}' NOT NULL,
	"classification" text DEFAULT '' NOT NULL,
	"class_confidence" integer DEFAULT 0 NOT NULL,
	"intent" text DEFAULT '' NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"personality" text DEFAULT '' NOT NULL,
	"degraded" boolean DEFAULT false NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"analyser" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_ticket_analysis" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"emotion_counts" text DEFAULT '{}' NOT NULL,
	"customer_emotion" text DEFAULT '' NOT NULL,
	"customer_confidence" integer DEFAULT 0 NOT NULL,
	"agent_emotion" text DEFAULT '' NOT NULL,
	"classification" text DEFAULT '' NOT NULL,
	"intent" text DEFAULT '' NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"personality" text DEFAULT '' NOT NULL,
	"language" text DEFAULT '' NOT NULL,
	"degraded" boolean DEFAULT false NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ai_message_analysis" ADD CONSTRAINT "ai_message_analysis_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_message_analysis" ADD CONSTRAINT "ai_message_analysis_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_ticket_analysis" ADD CONSTRAINT "ai_ticket_analysis_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_message_analysis_ticket_idx" ON "ai_message_analysis" USING btree ("ticket_id","message_id");
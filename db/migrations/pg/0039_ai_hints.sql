CREATE TABLE "ai_numbers" (
	"message_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "ai_numbers_message_id_value_pk" PRIMARY KEY("message_id","value")
);
--> statement-breakpoint
CREATE TABLE "ai_ticket_language" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"lang" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ai_translations" (
	"message_id" integer NOT NULL,
	"lang" text NOT NULL,
	"text" text NOT NULL,
	"translator" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "ai_translations_message_id_lang_pk" PRIMARY KEY("message_id","lang")
);
--> statement-breakpoint
ALTER TABLE "ai_numbers" ADD CONSTRAINT "ai_numbers_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_numbers" ADD CONSTRAINT "ai_numbers_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_ticket_language" ADD CONSTRAINT "ai_ticket_language_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ai_translations" ADD CONSTRAINT "ai_translations_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ai_numbers_value_idx" ON "ai_numbers" USING btree ("value","ticket_id");
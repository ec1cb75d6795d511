CREATE TABLE "whatsapp_template_messages" (
	"message_id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"language" text NOT NULL,
	"params" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "whatsapp_template_messages" ADD CONSTRAINT "whatsapp_template_messages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;
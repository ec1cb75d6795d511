CREATE TABLE "channel_messages" (
	"message_id" integer PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"account_id" integer NOT NULL,
	"direction" text NOT NULL,
	"provider_message_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channel_threads" (
	"account_id" integer NOT NULL,
	"customer_id" text NOT NULL,
	"ref" text DEFAULT '' NOT NULL,
	"ticket_id" integer NOT NULL,
	CONSTRAINT "channel_threads_account_id_customer_id_ref_pk" PRIMARY KEY("account_id","customer_id","ref")
);
--> statement-breakpoint
ALTER TABLE "inbound_events" ADD COLUMN "payload" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "customer_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "ref" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "channel_messages" ADD CONSTRAINT "channel_messages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_messages" ADD CONSTRAINT "channel_messages_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_threads" ADD CONSTRAINT "channel_threads_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_messages_provider_idx" ON "channel_messages" USING btree ("account_id","provider_message_id");
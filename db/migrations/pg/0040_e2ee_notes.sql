CREATE TABLE "e2ee_shared_keys" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"salt" text NOT NULL,
	"iterations" integer NOT NULL,
	"key_check" text,
	"checked_by" integer,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "message_notes" ADD COLUMN "cipher" text;--> statement-breakpoint
ALTER TABLE "message_notes" ADD COLUMN "key_version" integer;--> statement-breakpoint
ALTER TABLE "message_notes" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "e2ee_shared_keys" ADD CONSTRAINT "e2ee_shared_keys_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_shared_keys" ADD CONSTRAINT "e2ee_shared_keys_checked_by_users_id_fk" FOREIGN KEY ("checked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "message_notes_message_client_idx" ON "message_notes" USING btree ("message_id","client_id");
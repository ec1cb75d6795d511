CREATE TABLE "channel_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"address" text NOT NULL,
	"department_id" integer,
	"config" text DEFAULT '{}' NOT NULL,
	"secrets" text DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"state" text DEFAULT 'untested' NOT NULL,
	"last_error" text,
	"checked_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channel_cursors" (
	"account_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "channel_cursors_account_id_key_pk" PRIMARY KEY("account_id","key")
);
--> statement-breakpoint
CREATE TABLE "email_messages" (
	"message_id" integer PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL,
	"account_id" integer,
	"direction" text NOT NULL,
	"internet_message_id" text NOT NULL,
	"in_reply_to" text,
	"references" text DEFAULT '' NOT NULL,
	"thread_index" text,
	"thread_index_root" text,
	"subject" text DEFAULT '' NOT NULL,
	"from_address" text DEFAULT '' NOT NULL,
	"from_name" text DEFAULT '' NOT NULL,
	"to_addresses" text DEFAULT '[]' NOT NULL,
	"cc_addresses" text DEFAULT '[]' NOT NULL,
	"recipient_count" integer DEFAULT 0 NOT NULL,
	"bulk" boolean DEFAULT false NOT NULL,
	"auto" boolean DEFAULT false NOT NULL,
	"auth" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_participants" (
	"ticket_id" integer NOT NULL,
	"address" text NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"added_at" bigint NOT NULL,
	CONSTRAINT "email_participants_ticket_id_address_pk" PRIMARY KEY("ticket_id","address")
);
--> statement-breakpoint
CREATE TABLE "email_threads" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"account_id" integer,
	"reply_token" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbound_events" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" integer,
	"provider" text NOT NULL,
	"event_key" text NOT NULL,
	"source" text DEFAULT '' NOT NULL,
	"raw_key" text,
	"size" integer DEFAULT 0 NOT NULL,
	"meta" text DEFAULT '{}' NOT NULL,
	"state" text DEFAULT 'received' NOT NULL,
	"ticket_id" integer,
	"message_id" integer,
	"error" text,
	"received_at" bigint NOT NULL,
	"processed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"payload" text DEFAULT '{}' NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"run_at" bigint NOT NULL,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"finished_at" bigint
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "delivery_state" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "delivery_error" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "quoted" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "receiver_email" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "channel_account_id" integer;--> statement-breakpoint
ALTER TABLE "channel_accounts" ADD CONSTRAINT "channel_accounts_department_id_departments_id_fk" FOREIGN KEY ("department_id") REFERENCES "public"."departments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_cursors" ADD CONSTRAINT "channel_cursors_account_id_channel_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."channel_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_messages" ADD CONSTRAINT "email_messages_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_participants" ADD CONSTRAINT "email_participants_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_threads" ADD CONSTRAINT "email_threads_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_events" ADD CONSTRAINT "inbound_events_account_id_channel_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."channel_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "channel_accounts_kind_address_idx" ON "channel_accounts" USING btree ("kind","address");--> statement-breakpoint
CREATE INDEX "email_messages_internet_id_idx" ON "email_messages" USING btree ("internet_message_id");--> statement-breakpoint
CREATE INDEX "email_messages_thread_root_idx" ON "email_messages" USING btree ("thread_index_root");--> statement-breakpoint
CREATE INDEX "email_messages_ticket_idx" ON "email_messages" USING btree ("ticket_id");--> statement-breakpoint
CREATE INDEX "email_participants_address_idx" ON "email_participants" USING btree ("address");--> statement-breakpoint
CREATE UNIQUE INDEX "email_threads_token_idx" ON "email_threads" USING btree ("reply_token");--> statement-breakpoint
CREATE UNIQUE INDEX "inbound_events_key_idx" ON "inbound_events" USING btree ("provider","event_key");--> statement-breakpoint
CREATE INDEX "inbound_events_state_idx" ON "inbound_events" USING btree ("state","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_key_idx" ON "jobs" USING btree ("key");--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("state","run_at");
CREATE TABLE "wauchat_accounts" (
	"account_id" integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wauchat_callers" (
	"caller" text PRIMARY KEY NOT NULL,
	"ticket_id" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wauchat_conversations" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"account_id" integer,
	"stage" text DEFAULT 'start' NOT NULL,
	"language" text DEFAULT '' NOT NULL,
	"product" text DEFAULT '' NOT NULL,
	"misses" integer DEFAULT 0 NOT NULL,
	"last_message_id" integer DEFAULT 0 NOT NULL,
	"ended_by" text DEFAULT '' NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wauchat_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"keywords" text NOT NULL,
	"answer" text NOT NULL,
	"handover" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wauchat_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "wauchat_accounts" ADD CONSTRAINT "wauchat_accounts_account_id_channel_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."channel_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wauchat_callers" ADD CONSTRAINT "wauchat_callers_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wauchat_conversations" ADD CONSTRAINT "wauchat_conversations_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;
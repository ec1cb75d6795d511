CREATE TABLE "notification_prefs" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"push_sla" boolean DEFAULT true NOT NULL,
	"push_system" boolean DEFAULT true NOT NULL,
	"push_trade" boolean DEFAULT true NOT NULL,
	"quiet_start" integer,
	"quiet_end" integer,
	"new_tickets" boolean DEFAULT false NOT NULL,
	"new_ticket_channel" text DEFAULT '' NOT NULL,
	"new_ticket_department" integer,
	"new_ticket_campaign" integer,
	"new_ticket_priority" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text DEFAULT '' NOT NULL,
	"auth" text DEFAULT '' NOT NULL,
	"type" text DEFAULT 'webpush' NOT NULL,
	"domain" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "read" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "img" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "notification_prefs" ADD CONSTRAINT "notification_prefs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_endpoint_idx" ON "push_subscriptions" USING btree ("endpoint");--> statement-breakpoint
CREATE INDEX "push_subscriptions_user_idx" ON "push_subscriptions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "notifications_user_category_idx" ON "notifications" USING btree ("user_id","category","id");
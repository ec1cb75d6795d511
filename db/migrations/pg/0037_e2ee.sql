CREATE TABLE "e2ee_key_backups" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"blob" text NOT NULL,
	"salt" text NOT NULL,
	"iv" text NOT NULL,
	"iterations" integer NOT NULL,
	"fingerprint" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "e2ee_key_versions" (
	"ticket_id" integer NOT NULL,
	"version" integer NOT NULL,
	"created_by" integer,
	"created_at" bigint NOT NULL,
	CONSTRAINT "e2ee_key_versions_ticket_id_version_pk" PRIMARY KEY("ticket_id","version")
);
--> statement-breakpoint
CREATE TABLE "e2ee_user_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"public_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" bigint NOT NULL,
	"replaced_at" bigint
);
--> statement-breakpoint
CREATE TABLE "e2ee_wrapped_keys" (
	"ticket_id" integer NOT NULL,
	"version" integer NOT NULL,
	"user_id" integer NOT NULL,
	"wrapped_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	CONSTRAINT "e2ee_wrapped_keys_ticket_id_version_user_id_pk" PRIMARY KEY("ticket_id","version","user_id")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "cipher" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "key_version" integer;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "encryption" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "encryption_method" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "encryption_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "encryption_rekey" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "e2ee_key_backups" ADD CONSTRAINT "e2ee_key_backups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_key_versions" ADD CONSTRAINT "e2ee_key_versions_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_key_versions" ADD CONSTRAINT "e2ee_key_versions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_user_keys" ADD CONSTRAINT "e2ee_user_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_wrapped_keys" ADD CONSTRAINT "e2ee_wrapped_keys_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_wrapped_keys" ADD CONSTRAINT "e2ee_wrapped_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "e2ee_user_keys_user_idx" ON "e2ee_user_keys" USING btree ("user_id","replaced_at");--> statement-breakpoint
CREATE INDEX "e2ee_wrapped_keys_user_idx" ON "e2ee_wrapped_keys" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_ticket_client_idx" ON "messages" USING btree ("ticket_id","client_id");
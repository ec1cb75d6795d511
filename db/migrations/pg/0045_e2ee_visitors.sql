CREATE TABLE "e2ee_key_shares" (
	"ticket_id" integer NOT NULL,
	"version" integer NOT NULL,
	"user_id" integer NOT NULL,
	"shared_by" integer NOT NULL,
	"wrapped_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "e2ee_key_shares_ticket_id_version_user_id_shared_by_pk" PRIMARY KEY("ticket_id","version","user_id","shared_by")
);
--> statement-breakpoint
CREATE TABLE "e2ee_visitor_keys" (
	"ticket_id" integer PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "e2ee_visitor_wrapped_keys" (
	"ticket_id" integer NOT NULL,
	"version" integer NOT NULL,
	"wrapped_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	CONSTRAINT "e2ee_visitor_wrapped_keys_ticket_id_version_pk" PRIMARY KEY("ticket_id","version")
);
--> statement-breakpoint
ALTER TABLE "e2ee_key_shares" ADD CONSTRAINT "e2ee_key_shares_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_key_shares" ADD CONSTRAINT "e2ee_key_shares_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_key_shares" ADD CONSTRAINT "e2ee_key_shares_shared_by_users_id_fk" FOREIGN KEY ("shared_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_visitor_keys" ADD CONSTRAINT "e2ee_visitor_keys_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "e2ee_visitor_wrapped_keys" ADD CONSTRAINT "e2ee_visitor_wrapped_keys_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "e2ee_key_shares_user_idx" ON "e2ee_key_shares" USING btree ("user_id");
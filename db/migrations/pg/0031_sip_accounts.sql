CREATE TABLE "sip_accounts" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"sip_number" text NOT NULL,
	"password" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sip_accounts" ADD CONSTRAINT "sip_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sip_accounts_number_idx" ON "sip_accounts" USING btree ("sip_number");--> statement-breakpoint
CREATE UNIQUE INDEX "sip_accounts_user_idx" ON "sip_accounts" USING btree ("user_id");
CREATE TABLE "contact_import_rows" (
	"row_key" text PRIMARY KEY NOT NULL,
	"contact_id" integer NOT NULL,
	"import_id" integer
);
--> statement-breakpoint
CREATE TABLE "contact_imports" (
	"id" serial PRIMARY KEY NOT NULL,
	"file_key" text NOT NULL,
	"file_name" text DEFAULT '' NOT NULL,
	"by_user" integer,
	"created_at" bigint NOT NULL,
	"state" text DEFAULT 'checked' NOT NULL,
	"rows" integer DEFAULT 0 NOT NULL,
	"good" integer DEFAULT 0 NOT NULL,
	"bad" integer DEFAULT 0 NOT NULL,
	"done_rows" integer DEFAULT 0 NOT NULL,
	"imported" integer DEFAULT 0 NOT NULL,
	"finished_at" bigint
);
--> statement-breakpoint
CREATE TABLE "contact_merges" (
	"id" serial PRIMARY KEY NOT NULL,
	"into_id" integer NOT NULL,
	"from_id" integer NOT NULL,
	"moved" text NOT NULL,
	"by_user" integer,
	"merged_at" bigint NOT NULL,
	"undone_at" bigint
);
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "name_key" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "merged_into" integer;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "merged_at" bigint;--> statement-breakpoint
ALTER TABLE "contact_import_rows" ADD CONSTRAINT "contact_import_rows_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_import_rows" ADD CONSTRAINT "contact_import_rows_import_id_contact_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."contact_imports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_imports" ADD CONSTRAINT "contact_imports_by_user_users_id_fk" FOREIGN KEY ("by_user") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_merges" ADD CONSTRAINT "contact_merges_into_id_contacts_id_fk" FOREIGN KEY ("into_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_merges" ADD CONSTRAINT "contact_merges_from_id_contacts_id_fk" FOREIGN KEY ("from_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_merges" ADD CONSTRAINT "contact_merges_by_user_users_id_fk" FOREIGN KEY ("by_user") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_import_rows_contact_idx" ON "contact_import_rows" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "contact_imports_created_idx" ON "contact_imports" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "contact_merges_into_idx" ON "contact_merges" USING btree ("into_id","merged_at");--> statement-breakpoint
CREATE INDEX "contact_merges_from_idx" ON "contact_merges" USING btree ("from_id");--> statement-breakpoint
CREATE INDEX "contacts_name_key_idx" ON "contacts" USING btree ("name_key");--> statement-breakpoint
UPDATE "contacts" SET "name_key" = lower(trim("name"));
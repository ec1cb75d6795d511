CREATE TABLE "contact_field_values" (
	"contact_id" integer NOT NULL,
	"field_id" integer NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "contact_field_values_contact_id_field_id_pk" PRIMARY KEY("contact_id","field_id")
);
--> statement-breakpoint
CREATE TABLE "contact_fields" (
	"id" serial PRIMARY KEY NOT NULL,
	"label" text NOT NULL,
	"kind" text NOT NULL,
	"options" text DEFAULT '' NOT NULL,
	"required" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "case_types_name_idx";--> statement-breakpoint
ALTER TABLE "case_types" ADD COLUMN "name_key" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- hand-written (issue 19, case-type names): existing types get their key as the old index compared them, lower(name); the model recomputes NFKC + Unicode lower case for every new or renamed type
UPDATE "case_types" SET "name_key" = lower("name");--> statement-breakpoint
ALTER TABLE "contact_field_values" ADD CONSTRAINT "contact_field_values_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_field_values" ADD CONSTRAINT "contact_field_values_field_id_contact_fields_id_fk" FOREIGN KEY ("field_id") REFERENCES "public"."contact_fields"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "case_types_name_key_idx" ON "case_types" USING btree ("name_key");
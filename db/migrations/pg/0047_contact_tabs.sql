CREATE TABLE "contact_tabs" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"start_index" integer DEFAULT 0 NOT NULL,
	"data_per_page" integer DEFAULT 20 NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);

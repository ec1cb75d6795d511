CREATE TABLE "kb_article_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"article_id" integer NOT NULL,
	"version" integer NOT NULL,
	"type" text NOT NULL,
	"lang" text NOT NULL,
	"category" text NOT NULL,
	"title" text NOT NULL,
	"summary" text NOT NULL,
	"body" text NOT NULL,
	"visibility" text NOT NULL,
	"edited_by" integer,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_articles" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" text DEFAULT 'kb' NOT NULL,
	"lang" text DEFAULT 'en' NOT NULL,
	"category" text DEFAULT '' NOT NULL,
	"title" text NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"body" text NOT NULL,
	"visibility" text DEFAULT 'public' NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" integer,
	"updated_by" integer,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_images" (
	"id" serial PRIMARY KEY NOT NULL,
	"file_key" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"created_by" integer,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kb_article_versions" ADD CONSTRAINT "kb_article_versions_article_id_kb_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."kb_articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_article_versions" ADD CONSTRAINT "kb_article_versions_edited_by_users_id_fk" FOREIGN KEY ("edited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_articles" ADD CONSTRAINT "kb_articles_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_articles" ADD CONSTRAINT "kb_articles_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_images" ADD CONSTRAINT "kb_images_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "kb_article_versions_article_idx" ON "kb_article_versions" USING btree ("article_id","version");--> statement-breakpoint
CREATE INDEX "kb_articles_list_idx" ON "kb_articles" USING btree ("type","lang","visibility","updated_at");--> statement-breakpoint
CREATE INDEX "kb_articles_updated_idx" ON "kb_articles" USING btree ("updated_at");--> statement-breakpoint
-- Full-text search of the knowledge base (plugins/kb/search.server.ts): words through a GIN index
-- over to_tsvector('simple', ...) (the same expression as the queries), and pg_trgm GIN indexes for
-- ILIKE '%term%' on text outside ASCII (Chinese, Japanese, Korean have no word breaks).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX "kb_articles_fts_idx" ON "kb_articles" USING gin (to_tsvector('simple', "title" || ' ' || "category" || ' ' || "body"));
--> statement-breakpoint
CREATE INDEX "kb_articles_title_trgm_idx" ON "kb_articles" USING gin ("title" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX "kb_articles_body_trgm_idx" ON "kb_articles" USING gin ("body" gin_trgm_ops);

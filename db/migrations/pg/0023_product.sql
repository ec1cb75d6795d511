CREATE TABLE "product_tickets" (
	"product_id" integer NOT NULL,
	"ticket_id" integer NOT NULL,
	"linked_by" integer,
	"linked_at" bigint NOT NULL,
	CONSTRAINT "product_tickets_product_id_ticket_id_pk" PRIMARY KEY("product_id","ticket_id")
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"sku" text NOT NULL,
	"category" text DEFAULT '' NOT NULL,
	"price_minor" bigint,
	"currency" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"image_key" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "product_tickets" ADD CONSTRAINT "product_tickets_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_tickets" ADD CONSTRAINT "product_tickets_ticket_id_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_tickets" ADD CONSTRAINT "product_tickets_linked_by_users_id_fk" FOREIGN KEY ("linked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "product_tickets_ticket_idx" ON "product_tickets" USING btree ("ticket_id");--> statement-breakpoint
CREATE UNIQUE INDEX "products_sku_lower_idx" ON "products" USING btree (lower("sku"));--> statement-breakpoint
CREATE INDEX "products_category_idx" ON "products" USING btree ("category","name");--> statement-breakpoint
CREATE INDEX "products_name_idx" ON "products" USING btree ("name");--> statement-breakpoint
CREATE INDEX "products_image_idx" ON "products" USING btree ("image_key");
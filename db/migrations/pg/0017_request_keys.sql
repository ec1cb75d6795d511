CREATE TABLE "request_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"action" text NOT NULL,
	"result" text DEFAULT 'null' NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "request_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
CREATE INDEX "request_keys_created_idx" ON "request_keys" USING btree ("created_at");
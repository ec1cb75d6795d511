CREATE TABLE "call_did_agents" (
	"did_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	CONSTRAINT "call_did_agents_did_id_user_id_pk" PRIMARY KEY("did_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "call_dids" (
	"id" serial PRIMARY KEY NOT NULL,
	"number" text NOT NULL,
	"department_id" integer,
	"ring_timeout_seconds" integer DEFAULT 20 NOT NULL,
	"voicemail" boolean DEFAULT true NOT NULL,
	"greeting" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "call_did_agents" ADD CONSTRAINT "call_did_agents_did_id_call_dids_id_fk" FOREIGN KEY ("did_id") REFERENCES "public"."call_dids"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_did_agents" ADD CONSTRAINT "call_did_agents_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_dids" ADD CONSTRAINT "call_dids_department_id_departments_id_fk" FOREIGN KEY ("department_id") REFERENCES "public"."departments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_did_agents_user_idx" ON "call_did_agents" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "call_dids_number_idx" ON "call_dids" USING btree ("number");
CREATE TABLE "ai_call_checks" (
	"call_id" integer PRIMARY KEY NOT NULL,
	"checked_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ai_call_checks" ADD CONSTRAINT "ai_call_checks_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- calls checked before this table: those with hints, and those whose check job finished
INSERT INTO "ai_call_checks" ("call_id", "checked_at") SELECT "call_id", max("created_at") FROM "ai_call_hints" GROUP BY "call_id";--> statement-breakpoint
INSERT INTO "ai_call_checks" ("call_id", "checked_at")
  SELECT "calls"."id", max(coalesce("jobs"."finished_at", "jobs"."created_at")) FROM "jobs"
  JOIN "calls" ON "calls"."id"::text = split_part("jobs"."key", ':', 2)
  WHERE "jobs"."kind" = 'ai.callScam' AND "jobs"."state" = 'done' GROUP BY "calls"."id"
  ON CONFLICT DO NOTHING;

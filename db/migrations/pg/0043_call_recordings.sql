CREATE TABLE "call_transcripts" (
	"id" serial PRIMARY KEY NOT NULL,
	"call_id" integer NOT NULL,
	"source" text NOT NULL,
	"transcription" text NOT NULL,
	"translated_transcription" text DEFAULT '' NOT NULL,
	"interim" boolean DEFAULT false NOT NULL,
	"offset_ms" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "voicemail" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_key" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_type" text;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_bytes" integer;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "recording_ms" integer;--> statement-breakpoint
ALTER TABLE "call_transcripts" ADD CONSTRAINT "call_transcripts_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "call_transcripts_call_idx" ON "call_transcripts" USING btree ("call_id","offset_ms");
ALTER TABLE "ai_ticket_analysis" ADD COLUMN "energy" integer;--> statement-breakpoint
ALTER TABLE "ai_ticket_analysis" ADD COLUMN "pace" integer;
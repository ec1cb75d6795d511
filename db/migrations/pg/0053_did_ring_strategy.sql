ALTER TABLE "call_dids" ADD COLUMN "ring_strategy" text DEFAULT 'ring_all' NOT NULL;--> statement-breakpoint
ALTER TABLE "call_dids" ADD COLUMN "round_robin_last" text DEFAULT '' NOT NULL;
ALTER TABLE "jobs" ADD COLUMN "lane" text;--> statement-breakpoint
CREATE INDEX "jobs_lane_idx" ON "jobs" USING btree ("lane","state");--> statement-breakpoint
CREATE UNIQUE INDEX "jobs_lane_running_idx" ON "jobs" USING btree ("lane") WHERE "jobs"."state" = 'running';
DROP INDEX "tickets_kind_status_updated_idx";--> statement-breakpoint
DROP INDEX "tickets_kind_updated_idx";--> statement-breakpoint
CREATE INDEX "tickets_kind_status_updated_id_idx" ON "tickets" USING btree ("kind","status","updated_at","id");--> statement-breakpoint
CREATE INDEX "tickets_kind_updated_id_idx" ON "tickets" USING btree ("kind","updated_at","id");
DROP INDEX "contact_tickets_contact_ticket_idx";--> statement-breakpoint
ALTER TABLE "contact_tickets" ADD COLUMN "updated_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "contact_tickets_contact_updated_idx" ON "contact_tickets" USING btree ("contact_id","updated_at","ticket_id");--> statement-breakpoint
UPDATE "contact_tickets" ct SET "updated_at" = t."updated_at" FROM "tickets" t WHERE t."id" = ct."ticket_id";--> statement-breakpoint
CREATE FUNCTION contact_tickets_updated_on_link() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := coalesce((SELECT updated_at FROM tickets WHERE id = NEW.ticket_id), 0);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER contact_tickets_updated_on_link BEFORE INSERT ON "contact_tickets" FOR EACH ROW EXECUTE FUNCTION contact_tickets_updated_on_link();--> statement-breakpoint
CREATE FUNCTION contact_tickets_follow_ticket() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE contact_tickets SET updated_at = NEW.updated_at WHERE ticket_id = NEW.id AND updated_at <> NEW.updated_at;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER contact_tickets_follow_ticket AFTER UPDATE OF "updated_at" ON "tickets" FOR EACH ROW WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at) EXECUTE FUNCTION contact_tickets_follow_ticket();

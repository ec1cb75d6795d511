DROP INDEX `contact_tickets_contact_ticket_idx`;--> statement-breakpoint
ALTER TABLE `contact_tickets` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `contact_tickets_contact_updated_idx` ON `contact_tickets` (`contact_id`,`updated_at`,`ticket_id`);--> statement-breakpoint
UPDATE `contact_tickets` SET `updated_at` = coalesce((SELECT `updated_at` FROM `tickets` WHERE `tickets`.`id` = `contact_tickets`.`ticket_id`), 0);--> statement-breakpoint
CREATE TRIGGER `contact_tickets_updated_on_link` AFTER INSERT ON `contact_tickets` BEGIN
  UPDATE `contact_tickets` SET `updated_at` = coalesce((SELECT `updated_at` FROM `tickets` WHERE `id` = NEW.`ticket_id`), 0) WHERE `ticket_id` = NEW.`ticket_id`;
END;--> statement-breakpoint
CREATE TRIGGER `contact_tickets_follow_ticket` AFTER UPDATE OF `updated_at` ON `tickets` BEGIN
  UPDATE `contact_tickets` SET `updated_at` = NEW.`updated_at` WHERE `ticket_id` = NEW.`id` AND `updated_at` <> NEW.`updated_at`;
END;

DROP INDEX `tickets_status_updated_idx`;--> statement-breakpoint
DROP INDEX `tickets_updated_idx`;--> statement-breakpoint
ALTER TABLE `tickets` ADD `kind` text DEFAULT 'ticket' NOT NULL;--> statement-breakpoint
CREATE INDEX `tickets_kind_status_updated_idx` ON `tickets` (`kind`,`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `tickets_kind_updated_idx` ON `tickets` (`kind`,`updated_at`);--> statement-breakpoint
ALTER TABLE `participants` ADD `unread` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `participants` ADD `kind` text DEFAULT 'ticket' NOT NULL;--> statement-breakpoint
CREATE INDEX `participants_user_unread_kind_idx` ON `participants` (`user_id`,`unread`,`kind`);--> statement-breakpoint
-- backfill: the kind of existing conversations (and of their participants), unread flags from read times
UPDATE `tickets` SET `kind` = CASE WHEN `channel` = 'chat' THEN 'chat' WHEN `channel` = 'CALL' THEN 'call' ELSE 'livechat' END WHERE `channel` IN ('chat', 'CALL', 'LIVECHAT', 'LIVECHAT2');--> statement-breakpoint
UPDATE `participants` SET `kind` = (SELECT `kind` FROM `tickets` WHERE `tickets`.`id` = `participants`.`ticket_id`), `unread` = `last_read_at` < (SELECT `updated_at` FROM `tickets` WHERE `tickets`.`id` = `participants`.`ticket_id`);

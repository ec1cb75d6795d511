CREATE TABLE `e2ee_shared_keys` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`salt` text NOT NULL,
	`iterations` integer NOT NULL,
	`key_check` text,
	`checked_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`checked_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
ALTER TABLE `message_notes` ADD `cipher` text;--> statement-breakpoint
ALTER TABLE `message_notes` ADD `key_version` integer;--> statement-breakpoint
ALTER TABLE `message_notes` ADD `client_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `message_notes_message_client_idx` ON `message_notes` (`message_id`,`client_id`);
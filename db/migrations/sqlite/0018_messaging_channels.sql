CREATE TABLE `channel_messages` (
	`message_id` integer PRIMARY KEY NOT NULL,
	`ticket_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`direction` text NOT NULL,
	`provider_message_id` text NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_messages_provider_idx` ON `channel_messages` (`account_id`,`provider_message_id`);--> statement-breakpoint
CREATE TABLE `channel_threads` (
	`account_id` integer NOT NULL,
	`customer_id` text NOT NULL,
	`ref` text DEFAULT '' NOT NULL,
	`ticket_id` integer NOT NULL,
	PRIMARY KEY(`account_id`, `customer_id`, `ref`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `inbound_events` ADD `payload` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `customer_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `ref` text DEFAULT '' NOT NULL;
CREATE TABLE `ai_numbers` (
	`message_id` integer NOT NULL,
	`ticket_id` integer NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`message_id`, `value`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ai_numbers_value_idx` ON `ai_numbers` (`value`,`ticket_id`);--> statement-breakpoint
CREATE TABLE `ai_ticket_language` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`lang` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `ai_translations` (
	`message_id` integer NOT NULL,
	`lang` text NOT NULL,
	`text` text NOT NULL,
	`translator` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `lang`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade
);

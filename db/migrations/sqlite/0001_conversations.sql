CREATE TABLE `filter_presets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`query` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `filter_presets_user_idx` ON `filter_presets` (`user_id`);--> statement-breakpoint
CREATE TABLE `message_notes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `message_notes_message_idx` ON `message_notes` (`message_id`);--> statement-breakpoint
CREATE TABLE `message_reactions` (
	`message_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`reaction` text NOT NULL,
	PRIMARY KEY(`message_id`, `user_id`, `reaction`),
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `messages` ADD `file_key` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `file_name` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `file_type` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `file_size` integer;--> statement-breakpoint
ALTER TABLE `tickets` ADD `campaign_id` integer;--> statement-breakpoint
ALTER TABLE `tickets` ADD `appointment_at` integer;--> statement-breakpoint
CREATE INDEX `tickets_updated_idx` ON `tickets` (`updated_at`);
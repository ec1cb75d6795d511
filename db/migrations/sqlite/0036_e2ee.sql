CREATE TABLE `e2ee_key_backups` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`blob` text NOT NULL,
	`salt` text NOT NULL,
	`iv` text NOT NULL,
	`iterations` integer NOT NULL,
	`fingerprint` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `e2ee_key_versions` (
	`ticket_id` integer NOT NULL,
	`version` integer NOT NULL,
	`created_by` integer,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`ticket_id`, `version`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `e2ee_user_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`public_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`created_at` integer NOT NULL,
	`replaced_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `e2ee_user_keys_user_idx` ON `e2ee_user_keys` (`user_id`,`replaced_at`);--> statement-breakpoint
CREATE TABLE `e2ee_wrapped_keys` (
	`ticket_id` integer NOT NULL,
	`version` integer NOT NULL,
	`user_id` integer NOT NULL,
	`wrapped_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	PRIMARY KEY(`ticket_id`, `version`, `user_id`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `e2ee_wrapped_keys_user_idx` ON `e2ee_wrapped_keys` (`user_id`);--> statement-breakpoint
ALTER TABLE `messages` ADD `cipher` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `key_version` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `client_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `messages_ticket_client_idx` ON `messages` (`ticket_id`,`client_id`);--> statement-breakpoint
ALTER TABLE `tickets` ADD `encryption` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `encryption_method` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `encryption_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `encryption_rekey` integer DEFAULT false NOT NULL;
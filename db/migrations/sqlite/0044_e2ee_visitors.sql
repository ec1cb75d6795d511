CREATE TABLE `e2ee_key_shares` (
	`ticket_id` integer NOT NULL,
	`version` integer NOT NULL,
	`user_id` integer NOT NULL,
	`shared_by` integer NOT NULL,
	`wrapped_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`ticket_id`, `version`, `user_id`, `shared_by`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`shared_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `e2ee_key_shares_user_idx` ON `e2ee_key_shares` (`user_id`);--> statement-breakpoint
CREATE TABLE `e2ee_visitor_keys` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`public_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `e2ee_visitor_wrapped_keys` (
	`ticket_id` integer NOT NULL,
	`version` integer NOT NULL,
	`wrapped_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	PRIMARY KEY(`ticket_id`, `version`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);

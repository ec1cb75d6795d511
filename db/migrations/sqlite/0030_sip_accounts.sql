CREATE TABLE `sip_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`sip_number` text NOT NULL,
	`password` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sip_accounts_number_idx` ON `sip_accounts` (`sip_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `sip_accounts_user_idx` ON `sip_accounts` (`user_id`);
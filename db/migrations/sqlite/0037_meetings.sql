CREATE TABLE `meeting_invites` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`meeting_id` integer NOT NULL,
	`user_id` integer,
	`name` text DEFAULT '' NOT NULL,
	`key_hash` text,
	`bound_hash` text,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`meeting_id`) REFERENCES `meetings`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `meeting_invites_meeting_idx` ON `meeting_invites` (`meeting_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `meeting_invites_key_idx` ON `meeting_invites` (`key_hash`);--> statement-breakpoint
CREATE TABLE `meetings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token` text NOT NULL,
	`ticket_id` integer,
	`host_user_id` integer NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`attendees` text DEFAULT '[]' NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`host_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `meetings_token_idx` ON `meetings` (`token`);--> statement-breakpoint
CREATE INDEX `meetings_ticket_idx` ON `meetings` (`ticket_id`);
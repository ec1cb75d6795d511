CREATE TABLE `conversation_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`action` text NOT NULL,
	`ticket_id` integer NOT NULL,
	`ref_id` integer,
	`session_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversation_events_ticket_idx` ON `conversation_events` (`ticket_id`);--> statement-breakpoint
CREATE TABLE `link_previews` (
	`url_hash` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`state` text NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`image` text DEFAULT '' NOT NULL,
	`fetched_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `link_previews_fetched_idx` ON `link_previews` (`fetched_at`);
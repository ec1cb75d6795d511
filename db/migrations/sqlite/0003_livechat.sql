CREATE TABLE `livechat_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`email` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `livechat_sessions_email_idx` ON `livechat_sessions` (`email`);--> statement-breakpoint
CREATE TABLE `livechat_visits` (
	`token` text PRIMARY KEY NOT NULL,
	`widget_key` text NOT NULL,
	`ticket_id` integer,
	`state` text DEFAULT 'new' NOT NULL,
	`queued_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `livechat_visits_state_queued_idx` ON `livechat_visits` (`state`,`queued_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `livechat_visits_ticket_idx` ON `livechat_visits` (`ticket_id`);--> statement-breakpoint
ALTER TABLE `tickets` ADD `session_id` integer;--> statement-breakpoint
ALTER TABLE `tickets` ADD `rating` integer;--> statement-breakpoint
ALTER TABLE `tickets` ADD `rating_reason` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `tickets_session_idx` ON `tickets` (`session_id`);
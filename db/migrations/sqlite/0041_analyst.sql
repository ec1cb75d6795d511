CREATE TABLE `ai_recommendation_feedback` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`message_id` integer NOT NULL,
	`kind` text NOT NULL,
	`draft` text NOT NULL,
	`outcome` text DEFAULT '' NOT NULL,
	`user_id` integer,
	`reply_message_id` integer,
	`offered_at` integer NOT NULL,
	`decided_at` integer,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ai_rec_feedback_message_kind_idx` ON `ai_recommendation_feedback` (`message_id`,`kind`);--> statement-breakpoint
CREATE INDEX `ai_rec_feedback_ticket_idx` ON `ai_recommendation_feedback` (`ticket_id`,`outcome`);--> statement-breakpoint
CREATE INDEX `ai_rec_feedback_decided_idx` ON `ai_recommendation_feedback` (`decided_at`);--> statement-breakpoint
CREATE TABLE `ai_ticket_labels` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`emotion` text DEFAULT '' NOT NULL,
	`classification` text DEFAULT '' NOT NULL,
	`predicted_emotion` text DEFAULT '' NOT NULL,
	`predicted_classification` text DEFAULT '' NOT NULL,
	`user_id` integer,
	`labelled_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ai_ticket_labels_at_idx` ON `ai_ticket_labels` (`labelled_at`);--> statement-breakpoint
CREATE TABLE `trade_alert_hits` (
	`rule_id` integer NOT NULL,
	`message_id` integer NOT NULL,
	`ticket_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`rule_id`, `message_id`),
	FOREIGN KEY (`rule_id`) REFERENCES `trade_alert_rules`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `trade_alert_hits_ticket_idx` ON `trade_alert_hits` (`ticket_id`);--> statement-breakpoint
CREATE TABLE `trade_alert_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`keyword` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);

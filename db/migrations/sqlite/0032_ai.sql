CREATE TABLE `ai_message_analysis` (
	`message_id` integer PRIMARY KEY NOT NULL,
	`ticket_id` integer NOT NULL,
	`from_customer` integer NOT NULL,
	`language` text DEFAULT '' NOT NULL,
	`emotion` text DEFAULT '' NOT NULL,
	`confidence` integer DEFAULT 0 NOT NULL,
	`emotions` text DEFAULT '{}' NOT NULL,
	`classification` text DEFAULT '' NOT NULL,
	`class_confidence` integer DEFAULT 0 NOT NULL,
	`intent` text DEFAULT '' NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`personality` text DEFAULT '' NOT NULL,
	`degraded` integer DEFAULT false NOT NULL,
	`truncated` integer DEFAULT false NOT NULL,
	`analyser` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ai_message_analysis_ticket_idx` ON `ai_message_analysis` (`ticket_id`,`message_id`);--> statement-breakpoint
CREATE TABLE `ai_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ai_ticket_analysis` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`emotion_counts` text DEFAULT '{}' NOT NULL,
	`customer_emotion` text DEFAULT '' NOT NULL,
	`customer_confidence` integer DEFAULT 0 NOT NULL,
	`agent_emotion` text DEFAULT '' NOT NULL,
	`classification` text DEFAULT '' NOT NULL,
	`intent` text DEFAULT '' NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`personality` text DEFAULT '' NOT NULL,
	`language` text DEFAULT '' NOT NULL,
	`degraded` integer DEFAULT false NOT NULL,
	`truncated` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);

CREATE TABLE `wauchat_accounts` (
	`account_id` integer PRIMARY KEY NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `channel_accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `wauchat_callers` (
	`caller` text PRIMARY KEY NOT NULL,
	`ticket_id` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `wauchat_conversations` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer,
	`stage` text DEFAULT 'start' NOT NULL,
	`language` text DEFAULT '' NOT NULL,
	`product` text DEFAULT '' NOT NULL,
	`misses` integer DEFAULT 0 NOT NULL,
	`last_message_id` integer DEFAULT 0 NOT NULL,
	`ended_by` text DEFAULT '' NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `wauchat_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`keywords` text NOT NULL,
	`answer` text NOT NULL,
	`handover` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `wauchat_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);

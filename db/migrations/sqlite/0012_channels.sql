CREATE TABLE `channel_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`address` text NOT NULL,
	`department_id` integer,
	`config` text DEFAULT '{}' NOT NULL,
	`secrets` text DEFAULT '' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`state` text DEFAULT 'untested' NOT NULL,
	`last_error` text,
	`checked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`department_id`) REFERENCES `departments`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_accounts_kind_address_idx` ON `channel_accounts` (`kind`,`address`);--> statement-breakpoint
CREATE TABLE `channel_cursors` (
	`account_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `key`),
	FOREIGN KEY (`account_id`) REFERENCES `channel_accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `email_messages` (
	`message_id` integer PRIMARY KEY NOT NULL,
	`ticket_id` integer NOT NULL,
	`account_id` integer,
	`direction` text NOT NULL,
	`internet_message_id` text NOT NULL,
	`in_reply_to` text,
	`references` text DEFAULT '' NOT NULL,
	`thread_index` text,
	`thread_index_root` text,
	`subject` text DEFAULT '' NOT NULL,
	`from_address` text DEFAULT '' NOT NULL,
	`from_name` text DEFAULT '' NOT NULL,
	`to_addresses` text DEFAULT '[]' NOT NULL,
	`cc_addresses` text DEFAULT '[]' NOT NULL,
	`recipient_count` integer DEFAULT 0 NOT NULL,
	`bulk` integer DEFAULT false NOT NULL,
	`auto` integer DEFAULT false NOT NULL,
	`auth` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_messages_internet_id_idx` ON `email_messages` (`internet_message_id`);--> statement-breakpoint
CREATE INDEX `email_messages_thread_root_idx` ON `email_messages` (`thread_index_root`);--> statement-breakpoint
CREATE INDEX `email_messages_ticket_idx` ON `email_messages` (`ticket_id`);--> statement-breakpoint
CREATE TABLE `email_participants` (
	`ticket_id` integer NOT NULL,
	`address` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`ticket_id`, `address`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `email_participants_address_idx` ON `email_participants` (`address`);--> statement-breakpoint
CREATE TABLE `email_threads` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer,
	`reply_token` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_threads_token_idx` ON `email_threads` (`reply_token`);--> statement-breakpoint
CREATE TABLE `inbound_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer,
	`provider` text NOT NULL,
	`event_key` text NOT NULL,
	`source` text DEFAULT '' NOT NULL,
	`raw_key` text,
	`size` integer DEFAULT 0 NOT NULL,
	`meta` text DEFAULT '{}' NOT NULL,
	`state` text DEFAULT 'received' NOT NULL,
	`ticket_id` integer,
	`message_id` integer,
	`error` text,
	`received_at` integer NOT NULL,
	`processed_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `channel_accounts`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_events_key_idx` ON `inbound_events` (`provider`,`event_key`);--> statement-breakpoint
CREATE INDEX `inbound_events_state_idx` ON `inbound_events` (`state`,`received_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`payload` text DEFAULT '{}' NOT NULL,
	`state` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`run_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_key_idx` ON `jobs` (`key`);--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`state`,`run_at`);--> statement-breakpoint
ALTER TABLE `messages` ADD `delivery_state` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `delivery_error` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `quoted` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `receiver_email` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `channel_account_id` integer;
CREATE TABLE `departments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `editions` (
	`id` text PRIMARY KEY NOT NULL,
	`hosts` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `labels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`color` text DEFAULT '#000000' NOT NULL,
	`color_dark` text DEFAULT '#000000' NOT NULL,
	`level` integer DEFAULT 0 NOT NULL,
	`sla` integer DEFAULT 30 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`type` text DEFAULT 'text' NOT NULL,
	`body` text NOT NULL,
	`sender_user_id` integer,
	`sender_name` text DEFAULT '' NOT NULL,
	`reply_to_id` integer,
	`pinned` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sender_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `messages_ticket_created_idx` ON `messages` (`ticket_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `participants` (
	`ticket_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`assignee` integer DEFAULT false NOT NULL,
	`last_read_at` integer DEFAULT 0 NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`ticket_id`, `user_id`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `participants_user_idx` ON `participants` (`user_id`);--> statement-breakpoint
CREATE TABLE `plugin_toggles` (
	`edition_id` text NOT NULL,
	`plugin_id` text NOT NULL,
	`enabled` integer NOT NULL,
	PRIMARY KEY(`edition_id`, `plugin_id`)
);
--> statement-breakpoint
CREATE TABLE `public_tokens` (
	`kind` text NOT NULL,
	`token` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	PRIMARY KEY(`kind`, `token`)
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`refresh_hash` text,
	`user_id` integer NOT NULL,
	`mfa_pending` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`user_agent` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `sessions_refresh_idx` ON `sessions` (`refresh_hash`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ticket_labels` (
	`ticket_id` integer NOT NULL,
	`label_id` integer NOT NULL,
	PRIMARY KEY(`ticket_id`, `label_id`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_labels_label_idx` ON `ticket_labels` (`label_id`);--> statement-breakpoint
CREATE TABLE `tickets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_number` integer NOT NULL,
	`title` text NOT NULL,
	`channel` text NOT NULL,
	`status` integer DEFAULT 0 NOT NULL,
	`severity` text DEFAULT '' NOT NULL,
	`department_id` integer,
	`contact_name` text DEFAULT '' NOT NULL,
	`contact_email` text DEFAULT '' NOT NULL,
	`contact_phone` text DEFAULT '' NOT NULL,
	`emotion` text DEFAULT '' NOT NULL,
	`last_message` text DEFAULT '' NOT NULL,
	`responded` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`department_id`) REFERENCES `departments`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tickets_number_idx` ON `tickets` (`ticket_number`);--> statement-breakpoint
CREATE INDEX `tickets_status_updated_idx` ON `tickets` (`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `tickets_channel_idx` ON `tickets` (`channel`);--> statement-breakpoint
CREATE INDEX `tickets_department_idx` ON `tickets` (`department_id`);--> statement-breakpoint
CREATE INDEX `tickets_created_idx` ON `tickets` (`created_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`password_hash` text NOT NULL,
	`photo` text,
	`department_id` integer,
	`permissions` text DEFAULT '[]' NOT NULL,
	`language` text,
	`totp_secret` text,
	`totp_enabled` integer DEFAULT false NOT NULL,
	`totp_last_step` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'ONLINE' NOT NULL,
	`second_status` text DEFAULT '' NOT NULL,
	`status_reason` text DEFAULT '' NOT NULL,
	`status_time` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`department_id`) REFERENCES `departments`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_idx` ON `users` (`username`);
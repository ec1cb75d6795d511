CREATE TABLE `campaign_optouts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`channel` text DEFAULT '' NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_optouts_value_idx` ON `campaign_optouts` (`kind`,`value`);--> statement-breakpoint
CREATE TABLE `campaign_recipients` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`campaign_id` integer NOT NULL,
	`contact_id` integer NOT NULL,
	`address` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`ticket_id` integer,
	`message_id` integer,
	`error` text,
	`sent_at` integer,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`message_id`) REFERENCES `messages`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `campaign_recipients_contact_idx` ON `campaign_recipients` (`campaign_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `campaign_recipients_state_idx` ON `campaign_recipients` (`campaign_id`,`state`,`id`);--> statement-breakpoint
CREATE INDEX `campaign_recipients_sent_idx` ON `campaign_recipients` (`campaign_id`,`sent_at`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`channel_account_id` integer,
	`template` text DEFAULT '' NOT NULL,
	`audience` text DEFAULT 'all' NOT NULL,
	`query` text DEFAULT '' NOT NULL,
	`starts_at` integer,
	`state` text DEFAULT 'draft' NOT NULL,
	`per_minute` integer DEFAULT 60 NOT NULL,
	`created_by` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`channel_account_id`) REFERENCES `channel_accounts`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `campaigns_created_idx` ON `campaigns` (`created_at`,`id`);
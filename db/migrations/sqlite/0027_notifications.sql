CREATE TABLE `notification_prefs` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`push_sla` integer DEFAULT true NOT NULL,
	`push_system` integer DEFAULT true NOT NULL,
	`push_trade` integer DEFAULT true NOT NULL,
	`quiet_start` integer,
	`quiet_end` integer,
	`new_tickets` integer DEFAULT false NOT NULL,
	`new_ticket_channel` text DEFAULT '' NOT NULL,
	`new_ticket_department` integer,
	`new_ticket_campaign` integer,
	`new_ticket_priority` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `push_subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`endpoint` text NOT NULL,
	`p256dh` text DEFAULT '' NOT NULL,
	`auth` text DEFAULT '' NOT NULL,
	`type` text DEFAULT 'webpush' NOT NULL,
	`domain` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_subscriptions_endpoint_idx` ON `push_subscriptions` (`endpoint`);--> statement-breakpoint
CREATE INDEX `push_subscriptions_user_idx` ON `push_subscriptions` (`user_id`);--> statement-breakpoint
ALTER TABLE `notifications` ADD `read` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `notifications` ADD `img` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `notifications_user_category_idx` ON `notifications` (`user_id`,`category`,`id`);
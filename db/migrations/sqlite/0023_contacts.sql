CREATE TABLE `contact_identities` (
	`contact_id` integer NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`kind`, `value`),
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_identities_contact_idx` ON `contact_identities` (`contact_id`);--> statement-breakpoint
CREATE TABLE `contact_tickets` (
	`ticket_id` integer PRIMARY KEY NOT NULL,
	`contact_id` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_tickets_contact_ticket_idx` ON `contact_tickets` (`contact_id`,`ticket_id`);--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`uid` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`salutation` text DEFAULT '' NOT NULL,
	`id_type` text DEFAULT '' NOT NULL,
	`id_number` text DEFAULT '' NOT NULL,
	`notes` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_uid_idx` ON `contacts` (`uid`);--> statement-breakpoint
CREATE INDEX `contacts_name_idx` ON `contacts` (`name`);--> statement-breakpoint
CREATE INDEX `contacts_created_id_idx` ON `contacts` (`created_at`,`id`);
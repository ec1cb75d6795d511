CREATE TABLE `contact_import_rows` (
	`row_key` text PRIMARY KEY NOT NULL,
	`contact_id` integer NOT NULL,
	`import_id` integer,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`import_id`) REFERENCES `contact_imports`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `contact_import_rows_contact_idx` ON `contact_import_rows` (`contact_id`);--> statement-breakpoint
CREATE TABLE `contact_imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`file_key` text NOT NULL,
	`file_name` text DEFAULT '' NOT NULL,
	`by_user` integer,
	`created_at` integer NOT NULL,
	`state` text DEFAULT 'checked' NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	`good` integer DEFAULT 0 NOT NULL,
	`bad` integer DEFAULT 0 NOT NULL,
	`done_rows` integer DEFAULT 0 NOT NULL,
	`imported` integer DEFAULT 0 NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`by_user`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `contact_imports_created_idx` ON `contact_imports` (`created_at`);--> statement-breakpoint
CREATE TABLE `contact_merges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`into_id` integer NOT NULL,
	`from_id` integer NOT NULL,
	`moved` text NOT NULL,
	`by_user` integer,
	`merged_at` integer NOT NULL,
	`undone_at` integer,
	FOREIGN KEY (`into_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`from_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`by_user`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `contact_merges_into_idx` ON `contact_merges` (`into_id`,`merged_at`);--> statement-breakpoint
CREATE INDEX `contact_merges_from_idx` ON `contact_merges` (`from_id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `merged_into` integer;--> statement-breakpoint
ALTER TABLE `contacts` ADD `merged_at` integer;--> statement-breakpoint
CREATE INDEX `contacts_name_key_idx` ON `contacts` (`name_key`);--> statement-breakpoint
UPDATE `contacts` SET `name_key` = lower(trim(`name`));